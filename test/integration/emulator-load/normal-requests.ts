/**
 * What a well-behaved client sees while a hardening test attacks the emulator: a GET /v1/models and a
 * small non-streaming chat completion, each on a fresh connection (so accepting a connection is timed
 * too), with their status and wall time. The normal client runs in a worker thread, so the attackers'
 * work on this thread's event loop is not timed as the emulator's; the emulator under test runs in its
 * own process. The tests assert a bound far above the measured numbers.
 */
import { Worker } from 'node:worker_threads';

export interface NormalTiming {
  readonly modelsStatus: number;
  readonly modelsMs: number;
  readonly chatStatus: number;
  readonly chatMs: number;
}

const NORMAL_CLIENT = `
const { parentPort, workerData } = await import('node:worker_threads');
const { request } = await import('node:http');
const chat = JSON.stringify({
  model: 'small-fast-8b',
  messages: [{ role: 'user', content: 'Hello there.' }],
  max_completion_tokens: 2,
});
function timed(url, method, body) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent: false,
      headers: { authorization: 'Bearer normal-client', 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const timings = [];
for (let round = 0; round < workerData.rounds; round++) {
  await new Promise((resolve) => setTimeout(resolve, workerData.pauseMs));
  const models = await timed(workerData.baseUrl + '/v1/models', 'GET');
  const answer = await timed(workerData.baseUrl + '/v1/chat/completions', 'POST', chat);
  timings.push({ modelsStatus: models.status, modelsMs: models.ms, chatStatus: answer.status, chatMs: answer.ms });
}
parentPort.postMessage(timings);
`;

/** Times `rounds` pairs (models listing, then small chat completion), `pauseMs` apart, from a worker thread. */
export async function timeNormalRequests(baseUrl: string, rounds = 3, pauseMs = 50): Promise<NormalTiming[]> {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(NORMAL_CLIENT)}`), {
    workerData: { baseUrl, rounds, pauseMs },
  });
  try {
    return await new Promise<NormalTiming[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

/** The slowest of several timings, for the assertion and the report. */
export function slowest(timings: readonly NormalTiming[]): { modelsMs: number; chatMs: number } {
  return {
    modelsMs: Math.max(...timings.map((t) => t.modelsMs)),
    chatMs: Math.max(...timings.map((t) => t.chatMs)),
  };
}

/**
 * Runs `attackOnce` over and over on `concurrency` workers while the normal client times `rounds` pairs
 * of normal requests, so every normal request is served while attacks are in flight. `attackOnce`
 * asserts its own outcome: a wrong one fails the whole call. Resolves with the timings and attack count.
 */
export async function normalRequestsUnderAttack(
  baseUrl: string,
  attackOnce: () => Promise<void>,
  concurrency: number,
  rounds = 3,
): Promise<{ timings: NormalTiming[]; attacks: number }> {
  let attacking = true;
  let attacks = 0;
  const worker = async (): Promise<void> => {
    while (attacking) {
      await attackOnce();
      attacks++;
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  let timings: NormalTiming[];
  try {
    timings = await timeNormalRequests(baseUrl, rounds);
  } finally {
    attacking = false;
  }
  await Promise.all(workers);
  return { timings, attacks };
}

/** Prints the measured numbers when HARDENING_REPORT is set (the README and the issue quote them). */
export function report(name: string, timings: readonly NormalTiming[], extra = ''): void {
  if (!process.env.HARDENING_REPORT) return;
  const { modelsMs, chatMs } = slowest(timings);
  process.stderr.write(
    `[hardening] ${name}: slowest GET /v1/models ${modelsMs.toFixed(1)} ms, chat ${chatMs.toFixed(1)} ms over ${timings.length} rounds ${extra}\n`,
  );
}
