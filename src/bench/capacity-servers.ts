/**
 * The two servers of known truth the capacity benchmark searches (node:http on 127.0.0.1, port 0), the
 * same as the test helpers of the capacity tests (test/helpers/slots-server.ts, known-latency-server.ts;
 * the benchmark cannot import tests):
 *
 * - slots: `slots` requests served at once for `serviceMs` each (first token at half of it), the rest in
 *   one FIFO queue, so it completes at most slots / serviceMs requests per second: the true capacity of an
 *   open loop with constant arrivals;
 * - known latency: the first token after `fastMs`, or after `slowMs` for a seeded share of requests, so a
 *   TTFT SLO between the two is exceeded by exactly that share at any load.
 *
 * Both stream as the emulator does (usage in the final chunk) and answer GET .../v1/models.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRng } from '../util/rng.js';

export const BENCH_MODEL = 'capacity-bench-model';

export interface BenchServer {
  readonly url: string;
  close(): Promise<void>;
}

const sse = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;
const base = { id: 'b', object: 'chat.completion.chunk', model: BENCH_MODEL };
const TOKEN = sse({ ...base, choices: [{ index: 0, delta: { content: ' tok' }, finish_reason: null }] });
const LAST = sse({
  ...base,
  choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
  usage: { prompt_tokens: 16, completion_tokens: 1, total_tokens: 17 },
});

/** Serves `chat` for every POST (after its body), the model list for GET; listens on port 0. */
async function listen(chat: (res: ServerResponse) => void): Promise<BenchServer> {
  const server: Server = createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.method === 'GET') return models(req, res);
    req.resume();
    req.on('end', () => chat(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function models(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ object: 'list', data: [{ id: BENCH_MODEL, object: 'model', created: 0, owned_by: 'bench' }] }),
  );
}

/** The slots server: at most slots / serviceMs x 1000 requests per second. */
export function startSlotsServer(slots: number, serviceMs: number): Promise<BenchServer> {
  const waiting: ServerResponse[] = [];
  let busy = 0;
  const serve = (res: ServerResponse): void => {
    busy++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    setTimeout(() => res.destroyed || res.write(TOKEN), serviceMs / 2);
    setTimeout(() => {
      if (!res.destroyed) res.end(LAST);
      busy--;
      const next = waiting.shift();
      if (next) serve(next);
    }, serviceMs);
  };
  return listen((res) => {
    if (busy < slots) return serve(res);
    waiting.push(res);
    // A client that gave up is not served later.
    res.on('close', () => {
      const index = waiting.indexOf(res);
      if (index >= 0) waiting.splice(index, 1);
    });
  });
}

/** The known-latency server; `setSlowShare` changes the share for later requests. */
export async function startKnownLatencyServer(
  fastMs: number,
  slowMs: number,
  seed: number,
): Promise<BenchServer & { setSlowShare(share: number): void }> {
  const rng = createRng(seed);
  let share = 0;
  const server = await listen((res) => {
    const delayMs = rng.next() < share ? slowMs : fastMs;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    setTimeout(() => {
      if (res.destroyed) return;
      res.write(TOKEN);
      res.end(LAST);
    }, delayMs);
  });
  return {
    ...server,
    setSlowShare: (next) => {
      share = next;
    },
  };
}
