/**
 * A client that is never busy, for holding the emulator's `time_info` against what a client measures:
 * it runs in a worker thread (so the emulator's work on the test's thread never delays its reads), opens
 * every connection first, then writes all requests at once on raw sockets (prepared bytes, no HTTP
 * client) and timestamps, per request, just before its write and at the read that delivers its last
 * byte. It parses nothing while timing; the test thread reads the answers afterwards.
 */
import { Worker } from 'node:worker_threads';

/** One request of the burst: its JSON body (with `stream` set or not). */
export interface BurstRequest {
  readonly body: Record<string, unknown>;
}

/** What the client saw of one request: its time from write to last byte, and the raw answer. */
export interface BurstAnswer {
  /** From just before the request's write to the read that completed its answer (ms). */
  readonly e2eMs: number;
  /** Index of the request in the burst. */
  readonly index: number;
  /** Status line and headers, then the body as sent (chunked framing left in for streams). */
  readonly raw: string;
}

/** The answers, in request order, and how long the client's thread waited for a CPU meanwhile. */
export interface BurstResult {
  readonly answers: BurstAnswer[];
  /**
   * How long the client's thread waited for a CPU each time it woke up, on average, from the first
   * write to the last answer (ms; Linux schedstat, else 0): the machine's delay on each read it timed.
   */
  readonly clientWakeUpMs: number;
}

const CLIENT = `
const { parentPort, workerData } = await import('node:worker_threads');
const { connect } = await import('node:net');
const { readFileSync } = await import('node:fs');
/** This thread's time runnable but not running (ms) and its number of timeslices (Linux schedstat; else 0). */
function schedstat() {
  try {
    const fields = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { waitMs: fields[1] / 1e6 || 0, slices: fields[2] || 0 };
  } catch {
    return { waitMs: 0, slices: 0 };
  }
}
const { host, port, payloads } = workerData;
const sockets = await Promise.all(payloads.map(() => new Promise((resolve, reject) => {
  const socket = connect(port, host);
  socket.setNoDelay(true);
  socket.once('connect', () => resolve(socket));
  socket.once('error', reject);
})));
// Connected here means the kernel completed the handshake; the test says when the server has accepted.
parentPort.postMessage('connected');
await new Promise((resolve) => parentPort.once('message', resolve));
const before = schedstat();
/** Whole answer received? Chunked: the terminating chunk; otherwise Content-Length bytes after the headers. */
function complete(buffer) {
  const headerEnd = buffer.indexOf('\\r\\n\\r\\n');
  if (headerEnd < 0) return false;
  const head = buffer.subarray(0, headerEnd).toString('latin1').toLowerCase();
  const length = /\\r\\ncontent-length: *(\\d+)/.exec(head);
  if (length) return buffer.length >= headerEnd + 4 + Number(length[1]);
  return buffer.length >= 5 && buffer.subarray(buffer.length - 5).toString('latin1') === '0\\r\\n\\r\\n';
}
const answers = await Promise.all(payloads.map((payload, index) => new Promise((resolve, reject) => {
  const socket = sockets[index];
  const chunks = [];
  let sentMs = 0;
  socket.on('data', (chunk) => {
    const nowMs = performance.now();
    chunks.push(chunk);
    const buffer = chunks.length === 1 ? chunk : Buffer.concat(chunks);
    if (!complete(buffer)) return;
    socket.destroy();
    resolve({ index, e2eMs: nowMs - sentMs, raw: buffer.toString('utf8') });
  });
  socket.on('error', reject);
  sentMs = performance.now();
  socket.write(payload);
})));
const after = schedstat();
const slices = after.slices - before.slices;
parentPort.postMessage({ answers, clientWakeUpMs: slices > 0 ? (after.waitMs - before.waitMs) / slices : 0 });
`;

/**
 * Sends every request of `requests` at once, each on its own fresh connection, and resolves with one
 * answer per request, in request order. The connections are all open before the first write:
 * `connected` is awaited in between (e.g. until the server has accepted every connection).
 */
export async function sendBurst(
  baseUrl: string,
  requests: readonly BurstRequest[],
  connected: () => Promise<void>,
): Promise<BurstResult> {
  const { hostname, port, host } = new URL(baseUrl);
  const payloads = requests.map(({ body }) => {
    const json = Buffer.from(JSON.stringify(body));
    const head =
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer burst-client\r\n` +
      `content-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, 'latin1'), json]);
  });
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(CLIENT)}`), {
    workerData: { host: hostname, port: Number(port), payloads },
  });
  try {
    const failed = new Promise<never>((_, reject) => worker.once('error', reject));
    const message = () => Promise.race([new Promise<unknown>((resolve) => worker.once('message', resolve)), failed]);
    await message();
    await Promise.race([connected(), failed]);
    const answered = message();
    worker.postMessage('go');
    const { answers, clientWakeUpMs } = (await answered) as { answers: BurstAnswer[]; clientWakeUpMs: number };
    return { answers: answers.sort((a, b) => a.index - b.index), clientWakeUpMs };
  } finally {
    await worker.terminate();
  }
}
