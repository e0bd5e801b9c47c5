/**
 * A chat-completions server of KNOWN capacity, for capacity searches: `slots` requests are served at once,
 * each for `serviceMs` (the first token at half of it, the last at its end), the rest wait in one FIFO
 * queue. So it completes at most slots / serviceMs requests per second: below that rate (with constant
 * arrivals) nothing waits, above it the queue, and every TTFT, grows without bound. Streams as the
 * emulator does (usage in the final chunk). Records how many requests were in it at most. The queue is
 * ordered by the request's `service_tier` as the service's is: priority, then default (or none), then flex,
 * first come first served within a tier.
 */
import type { ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from './fault-servers.js';

export const SLOTS_MODEL = 'slots-model';

export interface SlotsServerOptions {
  readonly slots: number;
  readonly serviceMs: number;
  /** Tokens per answer (default 4). */
  readonly tokens?: number;
}

export interface SlotsServer extends TestServer {
  /** Largest number of requests waiting or in service at once. */
  readonly maxInside: () => number;
  /** Requests per second it can complete: slots / serviceMs. */
  readonly capacityPerS: number;
}

const chunk = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;

/** 0 priority, 1 default (or none), 2 flex. */
function tierRank(body: Buffer): number {
  try {
    const tier = (JSON.parse(body.toString('utf8')) as { service_tier?: unknown }).service_tier;
    return tier === 'priority' ? 0 : tier === 'flex' ? 2 : 1;
  } catch {
    return 1;
  }
}

export async function startSlotsServer(options: SlotsServerOptions): Promise<SlotsServer> {
  const tokens = options.tokens ?? 4;
  const waiting: { res: ServerResponse; rank: number }[] = [];
  let busy = 0;
  let inside = 0;
  let maxInside = 0;
  const serve = (res: ServerResponse): void => {
    busy++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const firstMs = options.serviceMs / 2;
    const gapMs = (options.serviceMs - firstMs) / Math.max(1, tokens - 1);
    for (let i = 0; i < tokens; i++) {
      setTimeout(
        () => {
          if (!res.destroyed)
            res.write(
              chunk({
                id: 'c',
                object: 'chat.completion.chunk',
                model: SLOTS_MODEL,
                choices: [{ index: 0, delta: { content: ' tok' }, finish_reason: null }],
              }),
            );
        },
        firstMs + i * gapMs,
      );
    }
    setTimeout(() => {
      if (!res.destroyed) {
        res.write(
          chunk({
            id: 'c',
            object: 'chat.completion.chunk',
            model: SLOTS_MODEL,
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            usage: { prompt_tokens: 16, completion_tokens: tokens, total_tokens: 16 + tokens },
          }),
        );
        res.end();
      }
      busy--;
      inside--;
      const next = waiting.shift();
      if (next) serve(next.res);
    }, options.serviceMs);
  };
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: SLOTS_MODEL, object: 'model', created: 0, owned_by: 'test' }] }),
      );
      return;
    }
    inside++;
    maxInside = Math.max(maxInside, inside);
    if (busy < options.slots) serve(res);
    else {
      const rank = tierRank(req.body);
      // Behind every request of its tier or a higher one.
      const at = waiting.findIndex((entry) => entry.rank > rank);
      waiting.splice(at < 0 ? waiting.length : at, 0, { res, rank });
      // A client that gave up is not served later (as vLLM aborts a request whose client went away).
      res.on('close', () => {
        const index = waiting.findIndex((entry) => entry.res === res);
        if (index < 0) return;
        waiting.splice(index, 1);
        inside--;
      });
    }
  });
  return { ...server, maxInside: () => maxInside, capacityPerS: (options.slots * 1000) / options.serviceMs };
}
