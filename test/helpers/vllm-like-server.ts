/**
 * A purpose-built server that streams as vLLM's OpenAI-compatible server does (SGLang, llama.cpp and
 * OpenAI behave the same way here): usage in a stream only when `stream_options.include_usage` asks for
 * it, then on a final chunk with empty `choices`; `data: [DONE]` at the end; no `time_info`. Its tokens
 * are short made-up words, so a client that counts them with o200k instead of taking the server's usage
 * gets a different number. It can fail the first attempt of every request (by its request id) with a
 * 429 or a 500, to show what retries hide. Every request is recorded. With `prefixCache` it reports
 * cached prompt tokens in usage and serves GET /metrics with vLLM's prefix-cache counters, which may say
 * another hit rate than its usage (a check of the two must notice).
 */
import type { ServerResponse } from 'node:http';
import { startTestServer, type CapturedRequest, type TestServer } from './fault-servers.js';

export const VLLM_MODEL = 'vllm-served-model';
/** The prompt size the server reports in usage, whatever was sent (so a test can tell it from an estimate). */
export const VLLM_PROMPT_TOKENS = 37;
/** One token per chunk: made-up words of the model's vocabulary, each several o200k tokens. */
const TOKENS = [' zqx', 'vrk', ' plo', 'mfa', ' qwj', 'yzd', ' xkv', 'bnr', ' wql', 'zpt', ' kjx', 'vfm'];

export interface VllmLikeOptions {
  /** Tokens generated per request (default 12), or fewer when max_completion_tokens asks. */
  readonly tokens?: number;
  /** Fail the first attempt of each request id with this status (429 carries `retry-after: 0`). */
  readonly failFirstAttempt?: 429 | 500;
  /** Sent in every chunk when set (vLLM sends none). */
  readonly systemFingerprint?: string;
  /** Answer streams with an `x-request-id` header of the server's own: `srv-<n>` (as a gateway or OpenAI does). */
  readonly serverRequestIds?: boolean;
  /**
   * Usage says `cachedTokens` of the VLLM_PROMPT_TOKENS cached (prompt_tokens_details), and GET /metrics
   * (otherwise a 404) counts each answered request as VLLM_PROMPT_TOKENS prefix-cache queries and
   * `serverHitTokens` hits, in vLLM's names.
   */
  readonly prefixCache?: { readonly cachedTokens: number; readonly serverHitTokens: number };
}

export interface VllmLikeServer extends TestServer {
  /** Parsed bodies of the chat completion requests, in arrival order. */
  readonly bodies: Record<string, unknown>[];
  /** Response ids handed out, in order. */
  readonly responseIds: string[];
}

export async function startVllmLikeServer(options: VllmLikeOptions = {}): Promise<VllmLikeServer> {
  const bodies: Record<string, unknown>[] = [];
  const responseIds: string[] = [];
  const seenRequestIds = new Set<string>();
  const counters = { queries: 0, hits: 0 };
  const prefixCache = options.prefixCache;
  const server = await startTestServer((req, res) => {
    if (prefixCache !== undefined && req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(
        [
          '# TYPE vllm:num_requests_running gauge',
          `vllm:num_requests_running{model_name="${VLLM_MODEL}"} 0`,
          '# TYPE vllm:prefix_cache_queries_total counter',
          `vllm:prefix_cache_queries_total{model_name="${VLLM_MODEL}"} ${counters.queries}`,
          '# TYPE vllm:prefix_cache_hits_total counter',
          `vllm:prefix_cache_hits_total{model_name="${VLLM_MODEL}"} ${counters.hits}`,
          '',
        ].join('\n'),
      );
      return;
    }
    // Like vLLM: no public catalog (/public/v1/models is a 404).
    if (req.method === 'GET' && req.url.endsWith('/v1/models') && !req.url.includes('/public/')) {
      json(res, 200, { object: 'list', data: [{ id: VLLM_MODEL, object: 'model', created: 0, owned_by: 'vllm' }] });
      return;
    }
    if (req.method !== 'POST' || !req.url.endsWith('/v1/chat/completions')) {
      json(res, 404, { object: 'error', message: `no route ${req.url}`, type: 'NotFoundError', code: 404 });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    bodies.push(body);
    const requestId = header(req, 'x-request-id');
    if (options.failFirstAttempt !== undefined && requestId !== undefined && !seenRequestIds.has(requestId)) {
      seenRequestIds.add(requestId);
      const status = options.failFirstAttempt;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) });
      res.end(
        JSON.stringify({
          object: 'error',
          message: status === 429 ? 'rate limited' : 'engine overloaded',
          type: 'ServerError',
          code: status,
        }),
      );
      return;
    }
    const id = `chatcmpl-${responseIds.length}`;
    responseIds.push(id);
    const max =
      typeof body['max_completion_tokens'] === 'number' ? body['max_completion_tokens'] : Number.POSITIVE_INFINITY;
    const count = Math.min(options.tokens ?? TOKENS.length, max);
    const stream = body['stream'] === true;
    const streamOptions = body['stream_options'] as { include_usage?: unknown } | undefined;
    const usage = {
      prompt_tokens: VLLM_PROMPT_TOKENS,
      completion_tokens: count,
      total_tokens: VLLM_PROMPT_TOKENS + count,
      ...(prefixCache === undefined ? {} : { prompt_tokens_details: { cached_tokens: prefixCache.cachedTokens } }),
    };
    if (prefixCache !== undefined) {
      counters.queries += VLLM_PROMPT_TOKENS;
      counters.hits += prefixCache.serverHitTokens;
    }
    const base = {
      id,
      created: 1_700_000_000,
      model: body['model'],
      ...(options.systemFingerprint ? { system_fingerprint: options.systemFingerprint } : {}),
    };
    const text = Array.from({ length: count }, (_, i) => TOKENS[i % TOKENS.length]).join('');
    if (!stream) {
      json(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }],
        usage,
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...(options.serverRequestIds ? { 'x-request-id': `srv-${responseIds.length - 1}` } : {}),
    });
    const event = (payload: unknown): void => {
      res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };
    const chunk = { ...base, object: 'chat.completion.chunk' };
    event({
      ...chunk,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    for (let i = 0; i < count; i++) {
      const last = i === count - 1;
      event({
        ...chunk,
        choices: [
          {
            index: 0,
            delta: { content: TOKENS[i % TOKENS.length] },
            logprobs: null,
            finish_reason: last ? 'length' : null,
          },
        ],
      });
    }
    if (streamOptions?.include_usage === true) event({ ...chunk, choices: [], usage });
    res.end('data: [DONE]\n\n');
  });
  return Object.assign(server, { bodies, responseIds });
}

function header(req: CapturedRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
