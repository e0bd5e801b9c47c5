/**
 * A chat-completions server with KNOWN timing, the yardstick of the accuracy benchmark: the first token
 * T ms after the request arrives, then one token every I ms, N tokens, then a final chunk with
 * finish_reason, usage and the configured time_info (passed through byte-exact). It records what it
 * really did (write times per stream, lateness against the schedule), so a benchmark can compare the
 * client's numbers with the truth rather than with the nominal plan.
 *
 * A yardstick must not under-report, so it speaks HTTP/1.1 itself on node:net (http1-framing.ts) rather
 * than through node:http: a request counts as arrived when the server's event loop began handling the
 * batch of reads it came in (util/arrival-clock.ts), and everything after that (parsing, answering) is
 * cheap enough that 256 requests arriving together are not kept waiting behind one another's HTTP
 * machinery, time that would otherwise be missing from "what the server did" and blamed on the client.
 *
 * This file owns the options, the routes and the listening socket. The schedule and its precision are
 * known-timing-answer.ts's, the prebuilt bytes known-timing-responses.ts's, the records
 * known-timing-stats.ts's. Sockets have Nagle off.
 *
 * HTTP it understands: one request at a time per connection (keep-alive, as undici sends them), bodies
 * with content-length, `connection: close`. Anything else gets a 400 and the connection is closed.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { TimeInfo, Usage } from '../../../src/protocol/chat.js';
import { type RequestHandler, sendWhole, serveConnection } from './http1-framing.js';
import { type AnswerPlan, answerChat } from './known-timing-answer.js';
import { buildResponses, type KnownTimingResponses } from './known-timing-responses.js';
import { createStats, type KnownTimingStats, monotonicOffsetMs } from './known-timing-stats.js';

export type { KnownTimingStats, RequestTrace } from './known-timing-stats.js';

/** How the server answers. */
export interface KnownTimingOptions {
  /** First token this many ms after the request's headers arrived. */
  readonly ttftMs: number;
  /** Then one token every `itlMs`. */
  readonly itlMs: number;
  /** Tokens per answer (each chunk carries exactly one token of text). */
  readonly tokens: number;
  /** time_info of the final chunk, sent as given (default: derived from the nominal schedule). */
  readonly timeInfo?: TimeInfo;
  /** usage.prompt_tokens (default 16). */
  readonly promptTokens?: number;
  /** Send usage in the final chunk (default true). */
  readonly usage?: boolean;
  /** A role-only chunk right after the headers, before the first token (default true). */
  readonly roleChunk?: boolean;
  /** End the stream with `data: [DONE]` (default false, like the emulator). */
  readonly doneMarker?: boolean;
  /** Text of every token (default " tok"). */
  readonly tokenText?: string;
  /** Keep per-token write times in `stats` (default true; turn off for long soak runs). */
  readonly recordTimings?: boolean;
  /** Keep a RequestTrace per streamed answer in `stats.traces` (default false). */
  readonly traceRequests?: boolean;
  readonly host?: string;
  readonly port?: number;
  /** Model id reported by GET /v1/models and in chunks (default "known-timing"). */
  readonly model?: string;
}

/** A running known-timing server. */
export interface KnownTimingServer {
  /** Base URL without `/v1`. */
  readonly url: string;
  readonly stats: KnownTimingStats;
  /** The usage every answer reports. */
  readonly usage: Usage;
  /** The time_info every answer reports. */
  readonly timeInfo: TimeInfo;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, port 0 unless told otherwise. */
export async function startKnownTimingServer(options: KnownTimingOptions): Promise<KnownTimingServer> {
  const { ttftMs, itlMs, tokens } = options;
  if (!(tokens >= 1) || !(ttftMs >= 0) || !(itlMs >= 0))
    throw new RangeError('known-timing server needs tokens >= 1, ttftMs >= 0, itlMs >= 0');
  const responses = buildResponses(options);
  const stats = createStats();
  const plan: AnswerPlan = {
    ttftMs,
    itlMs,
    tokens,
    responses,
    stats,
    recordTimings: options.recordTimings ?? true,
    traceRequests: options.traceRequests ?? false,
    toMonotonicMs: monotonicOffsetMs(),
  };
  const route = routeRequests(plan);
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, route);
  });
  await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stats,
    usage: responses.usage,
    timeInfo: responses.timeInfo,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The routes: GET /v1/models, POST /v1/chat/completions (on the schedule), 404 for anything else. */
function routeRequests(plan: AnswerPlan): RequestHandler {
  const responses: KnownTimingResponses = plan.responses;
  return (socket, head, body, arrivedMs, done) => {
    if (head.method === 'GET' && head.path.startsWith('/v1/models')) {
      sendWhole(socket, '200 OK', responses.modelsBody, head.keepAlive);
      return 'answered';
    }
    if (head.method !== 'POST' || !head.path.startsWith('/v1/chat/completions')) {
      sendWhole(socket, '404 Not Found', responses.notFoundBody, head.keepAlive);
      return 'answered';
    }
    answerChat(plan, socket, arrivedMs, body, wantsStream(body), head.keepAlive, done);
    return 'pending';
  };
}

/** `stream` decides the answer's shape; a body that is not JSON (msgpack, gzip) is answered as a stream. */
function wantsStream(body: Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return !(typeof parsed === 'object' && parsed !== null && (parsed as { stream?: unknown }).stream !== true);
  } catch {
    return true;
  }
}

/** Listens with a deep backlog: a closed loop of 256 connects all at once. */
function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: 2048 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
