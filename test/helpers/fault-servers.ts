/**
 * Small purpose-built HTTP servers on 127.0.0.1 port 0 for the client's tests: scripted SSE streams with
 * known timing, and the faults a real service shows (never answers, resets mid-stream, stalls before
 * headers or between chunks, bad chunks, error events, 429 with retry-after, usage on a separate
 * `choices: []` chunk, [DONE] or not, CRLF framing, every byte in its own write). Every server records
 * what it received and closes all its sockets in `close()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

/** One request as the server received it (body raw, before any decoding). */
export interface CapturedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  /** performance.now() when the request's headers arrived. */
  readonly arrivedMs: number;
  /** The client's port: equal across requests when a keep-alive connection was reused. */
  readonly remotePort: number;
}

/** A running test server. */
export interface TestServer {
  /** Base URL without `/v1`. */
  readonly url: string;
  readonly port: number;
  readonly requests: CapturedRequest[];
  close(): Promise<void>;
}

/** Answers one request; `index` counts requests from 0. */
export type FaultHandler = (req: CapturedRequest, res: ServerResponse, index: number) => void;

/** Starts a server whose every request (body read whole) goes to `handler`. */
export async function startTestServer(handler: FaultHandler): Promise<TestServer> {
  const requests: CapturedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (req, res) => {
    const arrivedMs = performance.now();
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const captured: CapturedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts),
        arrivedMs,
        remotePort: req.socket.remotePort ?? 0,
      };
      const index = requests.length;
      requests.push(captured);
      (res as ServerResponse & { timers?: Set<NodeJS.Timeout> }).timers = timers;
      handler(captured, res, index);
    });
  });
  const listener = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await listener.close();
    },
  };
}

/** A step of a scripted response, `afterMs` after the previous step. */
export type ScriptStep =
  | { readonly afterMs?: number; readonly write: string | Buffer }
  | { readonly afterMs?: number; readonly end: true }
  | { readonly afterMs?: number; readonly destroy: true };

/** Schedules `fn` after `ms`, cancelled by the server's close(). */
function later(res: ServerResponse, ms: number, fn: () => void): void {
  const timers = (res as ServerResponse & { timers?: Set<NodeJS.Timeout> }).timers;
  const timer = setTimeout(() => {
    timers?.delete(timer);
    fn();
  }, ms);
  timers?.add(timer);
}

/** Writes headers, then runs the steps one after another, each `afterMs` after the previous one. */
export function playScript(
  res: ServerResponse,
  steps: readonly ScriptStep[],
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  const run = (i: number): void => {
    const step = steps[i];
    if (step === undefined || res.destroyed) return;
    const act = (): void => {
      if (res.destroyed) return;
      if ('write' in step) res.write(step.write);
      else if ('end' in step) {
        res.end();
        return;
      } else {
        res.socket?.destroy();
        return;
      }
      run(i + 1);
    };
    if ((step.afterMs ?? 0) > 0) later(res, step.afterMs ?? 0, act);
    else act();
  };
  run(0);
}

/** A server that answers every request with the same script. */
export function startScriptServer(
  steps: readonly ScriptStep[],
  status = 200,
  headers: Record<string, string> = {},
): Promise<TestServer> {
  return startTestServer((_req, res) => playScript(res, steps, status, headers));
}

/** `data: <json>\n\n` (or with another line end). */
export function sseData(payload: unknown, eol = '\n'): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}${eol}${eol}`;
}

/** A `chat.completion.chunk` with one choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'test-model',
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
}

export const TEST_USAGE = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
export const TEST_TIME_INFO = {
  queue_time: 0.001,
  prompt_time: 0.002,
  completion_time: 0.03,
  total_time: 0.033,
  created: 1_700_000_000.5,
};

/** The three-token answer "Hello world!" as SSE events (role first, then text, then finish with usage). */
export function helloStream(
  options: { eol?: string; done?: boolean; usage?: 'final' | 'separate' | 'none' } = {},
): string[] {
  const eol = options.eol ?? '\n';
  const usage = options.usage ?? 'final';
  const finishExtra = usage === 'final' ? { usage: TEST_USAGE, time_info: TEST_TIME_INFO } : {};
  const events = [
    sseData(chunk({ role: 'assistant', content: '' }), eol),
    sseData(chunk({ content: 'Hello' }), eol),
    sseData(chunk({ content: ' wörld' }), eol),
    sseData(chunk({ content: '!' }), eol),
    sseData(chunk({}, 'stop', finishExtra), eol),
  ];
  if (usage === 'separate') events.push(sseData({ ...chunk({}), choices: [], usage: TEST_USAGE }, eol));
  if (options.done === true) events.push(sseData('[DONE]', eol));
  return events;
}

/** Never sends anything back (a stall before headers, forever). */
export function startSilentServer(): Promise<TestServer> {
  return startTestServer(() => undefined);
}

/** Writes every byte of `text` in its own write, a macrotask apart, so reads split everywhere. */
export function startByteByByteServer(text: string): Promise<TestServer> {
  const bytes = Buffer.from(text, 'utf8');
  return startTestServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (i >= bytes.length) {
        res.end();
        return;
      }
      res.write(bytes.subarray(i, i + 1));
      i += 1;
      setImmediate(next);
    };
    next();
  });
}

/** An error in OpenAI's shape (`{ error: { message, type, param, code } }`) with `status`. */
export function openAiError(res: ServerResponse, status: number, message: string, type: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}

/**
 * The routes a test server of one OpenAI API shares with the others: GET /v1/models lists `model`, and any
 * request but POST `path` gets OpenAI's 404. True when it answered (the caller is done with the request).
 */
export function answeredBesidesPath(
  request: CapturedRequest,
  res: ServerResponse,
  path: string,
  model: string,
): boolean {
  if (request.method === 'GET' && request.url.endsWith('/v1/models')) {
    sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'test' }] });
    return true;
  }
  if (request.method !== 'POST' || !request.url.endsWith(path)) {
    openAiError(res, 404, `Unknown path ${request.url}`, 'not_found_error');
    return true;
  }
  return false;
}

/** A captured request's body as a JSON object; null when it is not one. */
export function parseJsonBody(request: CapturedRequest): Record<string, unknown> | null {
  try {
    const body: unknown = JSON.parse(request.body.toString('utf8'));
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Answers a JSON body with `status` (an error body, or a non-streaming completion). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** First `throttled` requests get 429 with `retry-after`, later ones the hello stream. */
export function startThrottlingServer(throttled: number, retryAfterS: string): Promise<TestServer> {
  return startTestServer((_req, res, index) => {
    if (index < throttled) {
      sendJson(
        res,
        429,
        {
          message: 'Too many requests, slow down',
          type: 'too_many_requests_error',
          param: null,
          code: 'request_quota_exceeded',
        },
        { 'retry-after': retryAfterS, 'x-ratelimit-remaining-requests-minute': '0' },
      );
      return;
    }
    playScript(res, [...helloStream().map((write) => ({ write })), { end: true }]);
  });
}
