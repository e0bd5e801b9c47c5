/**
 * A chat-completions server with KNOWN timing, the yardstick of the accuracy benchmark: the first token
 * T ms after the request arrives, then one token every I ms, N tokens, then a final chunk with
 * finish_reason, usage and the configured time_info (passed through byte-exact). It records what it
 * really did (write times per stream, lateness against the schedule), so a benchmark can compare the
 * client's numbers with the truth rather than with the nominal plan.
 *
 * A yardstick must not under-report, so it speaks HTTP/1.1 itself on node:net rather than through
 * node:http: a request counts as arrived when the server's event loop began handling the batch of reads
 * it came in (util/arrival-clock.ts), and everything after that (parsing, answering) is cheap enough that
 * 256 requests arriving together are not kept waiting behind one another's HTTP machinery, time that
 * would otherwise be missing from "what the server did" and blamed on the client.
 *
 * Precision: each stream has ONE timer chain whose deadlines are absolute (arrival + T + k*I), so
 * lateness never accumulates; a late wake-up writes every token already due in one corked write (the
 * same TCP segment, as a real server catching up would). Chunks are prebuilt Buffers (HTTP chunked
 * framing included): a write costs no JSON work. Sockets have Nagle off.
 *
 * HTTP it understands: one request at a time per connection (keep-alive, as undici sends them), bodies
 * with content-length, `connection: close`. Anything else gets a 400 and the connection is closed.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { TimeInfo, Usage } from '../protocol/chat.js';
import { arrivalUs } from '../util/arrival-clock.js';

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
  /** Per streamed answer, with `traceRequests`: its body and when things happened, on the machine's clock. */
  readonly traces: RequestTrace[];
  /** Clears everything (e.g. after a warmup). */
  reset(): void;
}

/**
 * One streamed answer's times on CLOCK_MONOTONIC in ms (process.hrtime, the same clock in every process of
 * the machine), so a benchmark can line them up with the client's own timestamps of the same request,
 * found by its body.
 */
export interface RequestTrace {
  readonly body: string;
  /** When the server's event loop began handling the read the request came in. */
  readonly arrivedAtMs: number;
  firstTokenWrittenAtMs: number;
  finalWrittenAtMs: number;
}

/** Milliseconds to add to performance.now() for CLOCK_MONOTONIC (process.hrtime) milliseconds. */
export function monotonicOffsetMs(): number {
  return Number(process.hrtime.bigint()) / 1e6 - performance.now();
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
    traces: [],
    reset() {
      stats.requests = 0;
      stats.completed = 0;
      stats.maxActive = stats.active;
      stats.ttftMs.length = 0;
      stats.e2eMs.length = 0;
      stats.itlMs.length = 0;
      stats.lateMs.length = 0;
      stats.traces.length = 0;
    },
  };
  return stats;
}

/** One SSE event as one HTTP chunk of a chunked response. */
function sseChunk(payload: string): Buffer {
  const event = Buffer.from(`data: ${payload}\n\n`, 'utf8');
  return Buffer.concat([
    Buffer.from(`${event.length.toString(16)}\r\n`, 'latin1'),
    event,
    Buffer.from('\r\n', 'latin1'),
  ]);
}

const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');
/** A request head larger than this is refused (the client under test sends a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

function responseHead(status: string, headers: Record<string, string>, keepAlive: boolean): Buffer {
  let head = `HTTP/1.1 ${status}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`;
  return Buffer.from(head, 'latin1');
}

/** The parts of a request head the server acts on. */
interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly contentLength: number;
  readonly keepAlive: boolean;
}

/** Parses a request head (without the blank line); null when it is not HTTP/1.x it can serve. */
function parseHead(text: string): RequestHead | null {
  const lines = text.split('\r\n');
  const [method, path, version] = (lines[0] ?? '').split(' ');
  if (method === undefined || path === undefined || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) return null;
  let contentLength = 0;
  let keepAlive = version === 'HTTP/1.1';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value)) return null;
      contentLength = Number(value);
    } else if (name === 'transfer-encoding') {
      return null;
    } else if (name === 'connection') {
      const tokens = value.toLowerCase();
      if (tokens.includes('close')) keepAlive = false;
      else if (tokens.includes('keep-alive')) keepAlive = true;
    }
  }
  if (contentLength > MAX_BODY_BYTES) return null;
  return { method, path, contentLength, keepAlive };
}

/** Starts the server on 127.0.0.1, port 0 unless told otherwise. */
export async function startKnownTimingServer(options: KnownTimingOptions): Promise<KnownTimingServer> {
  const { ttftMs, itlMs, tokens } = options;
  if (!(tokens >= 1) || !(ttftMs >= 0) || !(itlMs >= 0))
    throw new RangeError('known-timing server needs tokens >= 1, ttftMs >= 0, itlMs >= 0');
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
  const base = {
    id: 'chatcmpl-known',
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model,
    system_fingerprint: 'fp_known',
  };
  const roleChunk = sseChunk(
    JSON.stringify({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    }),
  );
  const tokenChunk = sseChunk(
    JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: tokenText }, finish_reason: null }] }),
  );
  const finalPayload: Record<string, unknown> = {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
    time_info: timeInfo,
  };
  if (options.usage ?? true) finalPayload['usage'] = usage;
  const finalChunk = sseChunk(JSON.stringify(finalPayload));
  const doneChunk = sseChunk('[DONE]');
  const completionBody = Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-known',
      object: 'chat.completion',
      created: base.created,
      model,
      system_fingerprint: base.system_fingerprint,
      choices: [
        {
          index: 0,
          finish_reason: 'length',
          message: { role: 'assistant', content: tokenText.repeat(tokens), tool_calls: null },
          logprobs: null,
        },
      ],
      ...((options.usage ?? true) ? { usage } : {}),
      time_info: timeInfo,
    }),
    'utf8',
  );
  const modelsBody = Buffer.from(
    JSON.stringify({
      object: 'list',
      data: [{ id: model, object: 'model', created: base.created, owned_by: 'inferbench' }],
    }),
  );
  const notFoundBody = Buffer.from('{"message":"not found","type":"not_found_error","param":null,"code":"not_found"}');
  const badRequestBody = Buffer.from(
    '{"message":"the known-timing server could not read this request","type":"invalid_request_error","param":null,"code":"bad_request"}',
  );
  const streamHead = (keepAlive: boolean): Buffer =>
    responseHead(
      '200 OK',
      { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked' },
      keepAlive,
    );
  const streamHeads = { keepAlive: streamHead(true), close: streamHead(false) };

  const stats = createStats();
  const sockets = new Set<Socket>();

  /** Writes a whole response with a body; closes the connection after it unless kept alive. */
  const sendWhole = (socket: Socket, status: string, body: Buffer, keepAlive: boolean): void => {
    socket.cork();
    socket.write(
      responseHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) }, keepAlive),
    );
    socket.write(body);
    socket.uncork();
    if (!keepAlive) socket.end();
  };

  /** Answers one chat request; `onDone` runs when the answer is written (or the socket went away). */
  const traceRequests = options.traceRequests ?? false;
  const toMonotonicMs = monotonicOffsetMs();

  const answerChat = (
    socket: Socket,
    arrivedMs: number,
    body: Buffer,
    stream: boolean,
    keepAlive: boolean,
    onDone: () => void,
  ): void => {
    stats.requests += 1;
    stats.active += 1;
    if (stats.active > stats.maxActive) stats.maxActive = stats.active;
    let timer: NodeJS.Timeout | null = null;
    let ended = false;
    const finish = (completed: boolean): void => {
      if (ended) return;
      ended = true;
      socket.off('close', onClose);
      stats.active -= 1;
      if (completed) stats.completed += 1;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (completed && !keepAlive) socket.end();
      onDone();
    };
    const onClose = (): void => finish(false);
    socket.on('close', onClose);

    if (!stream) {
      const doneAtMs = arrivedMs + ttftMs + (tokens - 1) * itlMs;
      timer = setTimeout(
        () => {
          timer = null;
          if (socket.destroyed) return;
          const nowMs = performance.now();
          sendWhole(socket, '200 OK', completionBody, true);
          if (recordTimings) {
            stats.ttftMs.push(nowMs - arrivedMs);
            stats.e2eMs.push(nowMs - arrivedMs);
            stats.lateMs.push(nowMs - doneAtMs);
          }
          finish(true);
        },
        Math.max(0, doneAtMs - performance.now()),
      );
      return;
    }

    socket.cork();
    socket.write(keepAlive ? streamHeads.keepAlive : streamHeads.close);
    if (options.roleChunk ?? true) socket.write(roleChunk);
    socket.uncork();
    let next = 0;
    let previousWriteMs = Number.NaN;
    const trace: RequestTrace | null = traceRequests
      ? {
          body: body.toString('utf8'),
          arrivedAtMs: arrivedMs + toMonotonicMs,
          firstTokenWrittenAtMs: Number.NaN,
          finalWrittenAtMs: Number.NaN,
        }
      : null;
    if (trace !== null) stats.traces.push(trace);
    const dueMs = (k: number): number => arrivedMs + ttftMs + k * itlMs;
    const tick = (): void => {
      timer = null;
      if (socket.destroyed) return;
      const nowMs = performance.now();
      socket.cork();
      while (next < tokens && dueMs(next) <= nowMs + EARLY_SLACK_MS) {
        socket.write(tokenChunk);
        if (next === 0 && trace !== null) trace.firstTokenWrittenAtMs = nowMs + toMonotonicMs;
        if (recordTimings) {
          if (next === 0) stats.ttftMs.push(nowMs - arrivedMs);
          else stats.itlMs.push(nowMs - previousWriteMs);
          stats.lateMs.push(nowMs - dueMs(next));
        }
        previousWriteMs = nowMs;
        next += 1;
      }
      if (next >= tokens) {
        socket.write(finalChunk);
        if (options.doneMarker ?? false) socket.write(doneChunk);
        socket.write(LAST_CHUNK);
        socket.uncork();
        if (recordTimings) stats.e2eMs.push(nowMs - arrivedMs);
        if (trace !== null) trace.finalWrittenAtMs = nowMs + toMonotonicMs;
        finish(true);
        return;
      }
      socket.uncork();
      timer = setTimeout(tick, Math.max(0, dueMs(next) - performance.now()));
    };
    tick();
  };

  const onConnection = (socket: Socket): void => {
    socket.setNoDelay(true);
    sockets.add(socket);
    let buffered: Buffer = Buffer.alloc(0);
    /** Arrival of the request being read, stamped when its first bytes came. */
    let arrivedMs = Number.NaN;
    /** An answer is being written: the next request waits (no pipelining). */
    let busy = false;

    const serveBuffered = (): void => {
      while (!busy && buffered.length > 0 && !socket.destroyed) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd < 0) {
          if (buffered.length > MAX_HEAD_BYTES) sendWhole(socket, '400 Bad Request', badRequestBody, false);
          return;
        }
        const head = parseHead(buffered.subarray(0, headEnd).toString('latin1'));
        if (head === null) {
          buffered = Buffer.alloc(0);
          sendWhole(socket, '400 Bad Request', badRequestBody, false);
          return;
        }
        const bodyStart = headEnd + 4;
        if (buffered.length < bodyStart + head.contentLength) return;
        const body = buffered.subarray(bodyStart, bodyStart + head.contentLength);
        buffered = buffered.subarray(bodyStart + head.contentLength);
        const requestArrivedMs = arrivedMs;
        arrivedMs = buffered.length > 0 ? arrivalUs() / 1000 : Number.NaN;
        if (head.method === 'GET' && head.path.startsWith('/v1/models')) {
          sendWhole(socket, '200 OK', modelsBody, head.keepAlive);
          continue;
        }
        if (head.method !== 'POST' || !head.path.startsWith('/v1/chat/completions')) {
          sendWhole(socket, '404 Not Found', notFoundBody, head.keepAlive);
          continue;
        }
        // `stream` decides the answer's shape; a body that is not JSON (msgpack, gzip) is answered as a stream.
        let stream = true;
        try {
          const parsed: unknown = JSON.parse(body.toString('utf8'));
          if (typeof parsed === 'object' && parsed !== null && (parsed as { stream?: unknown }).stream !== true)
            stream = false;
        } catch {
          stream = true;
        }
        busy = true;
        answerChat(socket, requestArrivedMs, body, stream, head.keepAlive, () => {
          busy = false;
          if (head.keepAlive) setImmediate(serveBuffered);
        });
      }
    };

    socket.on('data', (data: Buffer) => {
      // Arrived when this poll batch began, not when the loop got round to this socket: requests that
      // come together would otherwise have the server's own intake left out of what it really did.
      if (buffered.length === 0) arrivedMs = arrivalUs() / 1000;
      buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
      serveBuffered();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };

  const server = createServer({ noDelay: true }, onConnection);
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
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
