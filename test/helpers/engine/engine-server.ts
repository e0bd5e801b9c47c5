/**
 * A thin OpenAI-compatible server over the in-process llama.cpp engine (llama-engine.ts), on 127.0.0.1
 * port 0: POST /v1/chat/completions and POST /v1/completions (OpenAI's text completions: a string `prompt`,
 * `choices[].text`, `object: "text_completion"`), each streaming SSE with `stream_options.include_usage` or
 * one JSON answer, GET /v1/models, and GET /metrics in llama.cpp server's names so that `target.server_metrics`
 * (preset llamacpp) reads it. Usage is counted with the engine's own tokenizer: the prompt is the chat
 * template applied to the messages (the completions prompt as it is), the completion the tokens generated.
 * Both routes keep the same request log, the engine's stamp of each token included.
 *
 * When every sequence is busy and the wait queue is full the answer is 503 (OpenAI's "The engine is
 * currently overloaded", RFC 9110's "temporarily overloaded"): the server lacks capacity, it is no rate
 * limit of the caller's (429), and the client retries neither unless told to.
 *
 * Nothing here waits on a timer: every delay a client sees is the engine's work.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  type ChatMessage,
  type EngineRequestLog,
  EngineOverloadedError,
  type GenerateParams,
  LlamaEngine,
  type LlamaEngineOptions,
} from './llama-engine.js';

export interface EngineServer {
  readonly url: string;
  readonly engine: LlamaEngine;
  /** The model id /v1/models lists. */
  readonly modelId: string;
  /** Every chat request that reached the engine, in arrival order. */
  readonly requests: readonly EngineRequestLog[];
  close(): Promise<void>;
}

export interface EngineServerOptions extends LlamaEngineOptions {
  /** Seed of sampled (temperature > 0) requests without a `seed` of their own; default 1. */
  readonly seed?: number;
}

/** The body of a chat or a completions request (`messages` or `prompt`). */
interface ChatBody {
  model?: unknown;
  messages?: unknown;
  prompt?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
  max_completion_tokens?: unknown;
  max_tokens?: unknown;
  stop?: unknown;
  temperature?: unknown;
  seed?: unknown;
  logit_bias?: unknown;
}

class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly status = 400,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function sendError(res: ServerResponse, status: number, message: string, param: string | null, code: string | null) {
  const type = status === 503 ? 'server_error' : 'invalid_request_error';
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param, code } }));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function messagesOf(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new BadRequest('messages must be a non-empty array', 'messages');
  return value.map((m, i) => {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown };
    const text = Array.isArray(content)
      ? content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
      : content;
    if (typeof role !== 'string' || typeof text !== 'string')
      throw new BadRequest(`messages[${i}] needs a role and a text content`, `messages[${i}]`);
    return { role, content: text };
  });
}

/**
 * The generation parameters. A chat request without a limit may fill the context; a completions request
 * has only `max_tokens`, 16 when absent (OpenAI's documented default for /v1/completions).
 */
/** The prompt of a /v1/completions request: one non-empty string (or an array holding just one). */
function promptOf(value: unknown): string {
  const text = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (typeof text !== 'string' || text === '')
    throw new BadRequest('prompt must be a non-empty string (this server takes one prompt per request)', 'prompt');
  return text;
}

function paramsOf(
  api: 'chat' | 'completions',
  body: ChatBody,
  fallbackSeed: number,
  contextLeft: number,
): GenerateParams {
  const name = api === 'chat' ? 'max_completion_tokens' : 'max_tokens';
  const max = api === 'chat' ? (body.max_completion_tokens ?? body.max_tokens ?? contextLeft) : (body.max_tokens ?? 16);
  if (!Number.isInteger(max) || (max as number) < 1) throw new BadRequest(`${name} must be a positive integer`, name);
  if ((max as number) > contextLeft)
    throw new BadRequest(
      `prompt + ${name} exceed the context (${contextLeft} tokens left)`,
      name,
      400,
      'context_length_exceeded',
    );
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string' && s.length > 0))
    throw new BadRequest('stop must be a string or an array of non-empty strings', 'stop');
  const temperature = body.temperature ?? 1;
  if (typeof temperature !== 'number' || temperature < 0 || temperature > 2)
    throw new BadRequest('temperature must be a number from 0 to 2', 'temperature');
  const seed = body.seed ?? fallbackSeed;
  if (!Number.isInteger(seed)) throw new BadRequest('seed must be an integer', 'seed');
  const bias = body.logit_bias ?? null;
  if (bias !== null && (typeof bias !== 'object' || Object.values(bias).some((v) => typeof v !== 'number')))
    throw new BadRequest('logit_bias must map token ids to numbers', 'logit_bias');
  return {
    maxTokens: max as number,
    stop,
    temperature,
    seed: seed as number,
    logitBias: bias as Record<string, number> | null,
  };
}

function metricsText(engine: LlamaEngine): string {
  const s = engine.stats();
  const rows: [string, 'counter' | 'gauge', string, number][] = [
    ['prompt_tokens_total', 'counter', 'Number of prompt tokens processed.', s.promptTokensTotal],
    ['prompt_seconds_total', 'counter', 'Prompt process time', s.promptSecondsTotal],
    ['tokens_predicted_total', 'counter', 'Number of generation tokens processed.', s.tokensPredictedTotal],
    ['tokens_predicted_seconds_total', 'counter', 'Predict process time', s.tokensPredictedSecondsTotal],
    ['kv_cache_usage_ratio', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', s.kvCacheUsageRatio],
    ['kv_cache_tokens', 'gauge', 'KV-cache tokens.', s.kvCacheTokens],
    ['requests_processing', 'gauge', 'Number of requests processing.', s.processing],
    ['requests_deferred', 'gauge', 'Number of requests deferred.', s.deferred],
  ];
  return rows
    .map(
      ([name, type, help, value]) =>
        `# HELP llamacpp:${name} ${help}\n# TYPE llamacpp:${name} ${type}\nllamacpp:${name} ${value}\n`,
    )
    .join('');
}

/** Loads the model and listens on 127.0.0.1 port 0. */
export async function startEngineServer(options: EngineServerOptions): Promise<EngineServer> {
  const engine = await LlamaEngine.start(options);
  const fallbackSeed = options.seed ?? 1;
  let counter = 0;

  /** POST /v1/chat/completions (`api` chat) or /v1/completions (`api` completions). */
  async function complete(api: 'chat' | 'completions', req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: ChatBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatBody;
    } catch {
      return sendError(res, 400, 'the body is not JSON', null, null);
    }
    const id = `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    let messages: ChatMessage[] = [];
    let text: string | null = null;
    let prompt: ReturnType<LlamaEngine['promptTokens']>;
    let params: GenerateParams;
    try {
      if (body.model !== undefined && body.model !== engine.modelId)
        throw new BadRequest(`The model \`${String(body.model)}\` does not exist`, 'model', 404, 'model_not_found');
      if (api === 'chat') {
        messages = messagesOf(body.messages);
        prompt = engine.promptTokens(messages);
      } else {
        text = promptOf(body.prompt);
        prompt = engine.tokenize(text);
      }
      params = paramsOf(api, body, fallbackSeed + counter, engine.contextSize - prompt.length);
    } catch (error) {
      if (error instanceof BadRequest) return sendError(res, error.status, error.message, error.param, error.code);
      throw error;
    }
    const header = req.headers['x-request-id'];
    const log: EngineRequestLog = {
      requestId: typeof header === 'string' ? header : null,
      messages,
      prompt: text,
      arrivedMs: performance.now(),
      startedMs: Number.NaN,
      tokenTimesMs: [],
      endedMs: Number.NaN,
      promptTokens: prompt.length,
      completionTokens: 0,
      finishReason: null,
      text: '',
    };
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const stream = body.stream === true;
    const usageChunk = stream && body.stream_options?.include_usage === true;
    const model = engine.modelId;
    const object = api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const event = (choices: object[], more: object = {}) =>
      `data: ${JSON.stringify({ id, object, created, model, choices, ...more })}\n\n`;
    // A chat chunk carries a delta; a completions chunk (OpenAI's legacy stream) the text itself.
    const chunk = (piece: string, finish: string | null, role = false) =>
      event([
        api === 'chat'
          ? {
              index: 0,
              delta: role ? { role: 'assistant', content: piece } : finish === null ? { content: piece } : {},
              finish_reason: finish,
              logprobs: null,
            }
          : { index: 0, text: piece, finish_reason: finish, logprobs: null },
      ]);
    let started = false;
    const onText = (piece: string) => {
      if (!stream) return;
      if (!started) {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          ...(log.requestId ? { 'x-request-id': log.requestId } : {}),
        });
        if (api === 'chat') res.write(chunk('', null, true));
        started = true;
      }
      if (piece !== '' || api === 'chat') res.write(chunk(piece, null));
    };
    engine.requests.push(log);
    try {
      await engine.generate(log, prompt, params, onText, gone.signal);
    } catch (error) {
      if (error instanceof EngineOverloadedError)
        return sendError(res, 503, `The engine is currently overloaded: ${error.message}`, null, 'overloaded');
      throw error;
    }
    if (gone.signal.aborted) return;
    const usage = {
      prompt_tokens: log.promptTokens,
      completion_tokens: log.completionTokens,
      total_tokens: log.promptTokens + log.completionTokens,
    };
    if (!stream) {
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(log.requestId ? { 'x-request-id': log.requestId } : {}),
      });
      const choice =
        api === 'chat'
          ? {
              index: 0,
              message: { role: 'assistant', content: log.text },
              finish_reason: log.finishReason,
              logprobs: null,
            }
          : { index: 0, text: log.text, finish_reason: log.finishReason, logprobs: null };
      res.end(
        JSON.stringify({
          id,
          object: api === 'chat' ? 'chat.completion' : 'text_completion',
          created,
          model,
          choices: [choice],
          usage,
        }),
      );
      return;
    }
    if (!started) onText('');
    res.write(chunk('', log.finishReason));
    if (usageChunk) res.write(event([], { usage }));
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return res.end(metricsText(engine));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: engine.modelId, object: 'model', created: 0, owned_by: 'inferbench-test' }],
        }),
      );
    }
    const api = path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completions' : null;
    if (req.method === 'POST' && api !== null) {
      complete(api, req, res).catch((error: unknown) => {
        if (!res.headersSent) sendError(res, 500, String(error), null, null);
        else res.destroy();
      });
      return;
    }
    sendError(res, 404, `no route ${req.method} ${path}`, null, null);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    engine,
    modelId: engine.modelId,
    requests: engine.requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}
