/**
 * A chat-completions server with KNOWN timing, the yardstick of the accuracy benchmark: the first token
 * T ms after the request arrives, then one token every I ms, N tokens, then a final chunk with
 * finish_reason, usage and the configured time_info (passed through byte-exact). It records what it
 * really did (write times per stream, lateness against the schedule), so a benchmark can compare the
 * client's numbers with the truth rather than with the nominal plan.
 *
 * Precision: each stream has ONE timer chain whose deadlines are absolute (arrival + T + k*I), so
 * lateness never accumulates; a late wake-up writes every token already due in one corked write (the
 * same TCP segment, as a real server catching up would). Chunks are prebuilt Buffers: a write costs no
 * JSON work. Sockets have Nagle off.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TimeInfo, Usage } from '../protocol/chat.js';

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
  readonly host?: string;
  readonly port?: number;
  /** Model id reported by GET /v1/models and in chunks (default "known-timing"). */
  readonly model?: string;
}

/** What the server really did, in ms measured on its own performance.now() clock. */
export interface KnownTimingStats {
  /** Requests received (chat completions). */
  requests: number;
  /** Answers written to the end. */
  completed: number;
  /** Streams in progress now, and the most at once. */
  active: number;
  maxActive: number;
  /** Per completed answer: arrival -> first token write. */
  readonly ttftMs: number[];
  /** Per completed answer: arrival -> final write. */
  readonly e2eMs: number[];
  /** Every gap between consecutive token writes of one answer (pooled). */
  readonly itlMs: number[];
  /** Every token write's lateness against its absolute deadline (>= 0 unless written within the early slack). */
  readonly lateMs: number[];
  /** Clears everything (e.g. after a warmup). */
  reset(): void;
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

/** A wake-up this close to a deadline writes now: waiting another timer tick would be later still. */
const EARLY_SLACK_MS = 0.25;

function createStats(): KnownTimingStats {
  const stats: KnownTimingStats = {
    requests: 0,
    completed: 0,
    active: 0,
    maxActive: 0,
    ttftMs: [],
    e2eMs: [],
    itlMs: [],
    lateMs: [],
    reset() {
      stats.requests = 0;
      stats.completed = 0;
      stats.maxActive = stats.active;
      stats.ttftMs.length = 0;
      stats.e2eMs.length = 0;
      stats.itlMs.length = 0;
      stats.lateMs.length = 0;
    },
  };
  return stats;
}

function sse(payload: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(payload)}\n\n`, 'utf8');
}

/** Starts the server on 127.0.0.1, port 0 unless told otherwise. */
export async function startKnownTimingServer(options: KnownTimingOptions): Promise<KnownTimingServer> {
  const { ttftMs, itlMs, tokens } = options;
  if (!(tokens >= 1) || !(ttftMs >= 0) || !(itlMs >= 0)) throw new RangeError('known-timing server needs tokens >= 1, ttftMs >= 0, itlMs >= 0');
  const model = options.model ?? 'known-timing';
  const tokenText = options.tokenText ?? ' tok';
  const recordTimings = options.recordTimings ?? true;
  const promptTokens = options.promptTokens ?? 16;
  const usage: Usage = { prompt_tokens: promptTokens, completion_tokens: tokens, total_tokens: promptTokens + tokens };
  const timeInfo: TimeInfo = options.timeInfo ?? {
    queue_time: 0,
    prompt_time: ttftMs / 1000,
    completion_time: ((tokens - 1) * itlMs) / 1000,
    total_time: (ttftMs + (tokens - 1) * itlMs) / 1000,
    created: 1_767_225_600.5,
  };
  const base = { id: 'chatcmpl-known', object: 'chat.completion.chunk', created: 1_767_225_600, model, system_fingerprint: 'fp_known' };
  const roleChunk = sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const tokenChunk = sse({ ...base, choices: [{ index: 0, delta: { content: tokenText }, finish_reason: null }] });
  const finalPayload: Record<string, unknown> = { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'length' }], time_info: timeInfo };
  if (options.usage ?? true) finalPayload['usage'] = usage;
  const finalChunk = sse(finalPayload);
  const doneChunk = Buffer.from('data: [DONE]\n\n', 'utf8');
  const completionBody = Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-known',
      object: 'chat.completion',
      created: base.created,
      model,
      system_fingerprint: base.system_fingerprint,
      choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: tokenText.repeat(tokens), tool_calls: null }, logprobs: null }],
      ...(options.usage ?? true ? { usage } : {}),
      time_info: timeInfo,
    }),
    'utf8',
  );
  const modelsBody = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', created: base.created, owned_by: 'inferbench' }] }));

  const stats = createStats();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();

  /** Counts one answer as ended, once, whether written to the end or cut by the client. */
  const settle = (res: ServerResponse & { knownTimingSettled?: boolean }, completed: boolean): void => {
    if (res.knownTimingSettled === true) return;
    res.knownTimingSettled = true;
    stats.active -= 1;
    if (completed) stats.completed += 1;
  };

  const streamAnswer = (res: ServerResponse, arrivedMs: number): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (options.roleChunk ?? true) res.write(roleChunk);
    else res.flushHeaders();
    let next = 0;
    let previousWriteMs = Number.NaN;
    let timer: NodeJS.Timeout | null = null;
    const dueMs = (k: number): number => arrivedMs + ttftMs + k * itlMs;
    const stop = (): void => {
      if (timer !== null) {
        clearTimeout(timer);
        timers.delete(timer);
        timer = null;
      }
    };
    res.on('close', stop);
    const tick = (): void => {
      if (timer !== null) timers.delete(timer);
      timer = null;
      if (res.destroyed) return;
      const nowMs = performance.now();
      res.cork();
      while (next < tokens && dueMs(next) <= nowMs + EARLY_SLACK_MS) {
        res.write(tokenChunk);
        if (recordTimings) {
          if (next === 0) stats.ttftMs.push(nowMs - arrivedMs);
          else stats.itlMs.push(nowMs - previousWriteMs);
          stats.lateMs.push(nowMs - dueMs(next));
        }
        previousWriteMs = nowMs;
        next += 1;
      }
      if (next >= tokens) {
        res.write(finalChunk);
        if (options.doneMarker ?? false) res.write(doneChunk);
        res.end();
        res.uncork();
        settle(res, true);
        if (recordTimings) stats.e2eMs.push(nowMs - arrivedMs);
        return;
      }
      res.uncork();
      timer = setTimeout(tick, Math.max(0, dueMs(next) - performance.now()));
      timers.add(timer);
    };
    tick();
  };

  const wholeAnswer = (res: ServerResponse, arrivedMs: number): void => {
    const doneAtMs = arrivedMs + ttftMs + (tokens - 1) * itlMs;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (res.destroyed) return;
      const nowMs = performance.now();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(completionBody.length) });
      res.end(completionBody);
      settle(res, true);
      if (recordTimings) {
        stats.ttftMs.push(nowMs - arrivedMs);
        stats.e2eMs.push(nowMs - arrivedMs);
        stats.lateMs.push(nowMs - doneAtMs);
      }
    }, Math.max(0, doneAtMs - performance.now()));
    timers.add(timer);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const arrivedMs = performance.now();
    if (req.method === 'GET' && req.url?.startsWith('/v1/models') === true) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(modelsBody.length) });
      res.end(modelsBody);
      return;
    }
    if (req.method !== 'POST' || req.url?.startsWith('/v1/chat/completions') !== true) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"not found","type":"not_found_error","param":null,"code":"not_found"}');
      return;
    }
    stats.requests += 1;
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      // `stream` decides the answer's shape; a body that is not JSON (msgpack, gzip) is answered as a stream.
      let stream = true;
      try {
        const body: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
        if (typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream !== true) stream = false;
      } catch {
        stream = true;
      }
      stats.active += 1;
      if (stats.active > stats.maxActive) stats.maxActive = stats.active;
      res.on('close', () => settle(res, false));
      if (stream) streamAnswer(res, arrivedMs);
      else wholeAnswer(res, arrivedMs);
    });
  };

  const server = createServer({ noDelay: true, keepAliveTimeout: 120_000, requestTimeout: 0, headersTimeout: 60_000 }, onRequest);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, backlog: 2048 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stats,
    usage,
    timeInfo,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
