/**
 * A text-completions server (POST /v1/completions, OpenAI's legacy API as vLLM and SGLang serve it) with
 * KNOWN timing and token counts, on 127.0.0.1 port 0: the first text `firstTextMs` after the request
 * arrived (after an empty-text event sent at once, which is no token), then one token every `tokenMs`,
 * `tokens` tokens of `tokenText` each, a last event with finish_reason, a usage event with prompt_tokens
 * counted by o200k on the prompt it received and completion_tokens = `tokens`, then `data: [DONE]`.
 * `stream: false` gets the whole `text_completion` body at the same first-text time.
 *
 * It stamps, on the process's performance clock (util/clock.ts nowUs, the client's clock in-process),
 * when it wrote each text event, per request under the request's x-request-id: a test compares the
 * client's first-token stamp with the server's write of the same event, on one clock.
 *
 * Models: `MODEL` answers; `ERROR_MIDSTREAM_MODEL` sends two tokens then an `{"error": {...}}` event and
 * ends the stream; any other model gets a 404 in OpenAI's error shape. A body that is not a completions
 * request (no string `prompt`, or chat's `messages`) gets a 400. GET /v1/models lists MODEL.
 */
import type { ServerResponse } from 'node:http';
import { nowUs } from '../../src/util/clock.js';
import { o200kTokenizer } from '../../src/util/tokenizer.js';
import {
  startTestServer,
  type TestServer,
  sendJson,
  openAiError,
  parseJsonBody,
  answeredBesidesPath,
} from './fault-servers.js';
import { orderedSchedule } from './ordered-timers.js';

export const MODEL = 'completions-model';
export const ERROR_MIDSTREAM_MODEL = 'completions-midstream-error';

export interface CompletionsServerOptions {
  /** The first non-empty text this long after the request arrived. */
  readonly firstTextMs: number;
  /** Then one token every `tokenMs`. */
  readonly tokenMs: number;
  /** Tokens per answer (one per event). */
  readonly tokens: number;
  /** Text of each token: one o200k token (default " tok"). */
  readonly tokenText?: string;
}

/** What the server did for one request. */
export interface ServedCompletion {
  readonly body: Record<string, unknown>;
  /** nowUs() when the request was handled (its body read). */
  readonly arrivedUs: number;
  /** nowUs() right after each text event was written (the first is the first token). */
  readonly textWrittenUs: number[];
  readonly promptTokens: number;
}

export interface CompletionsServer extends TestServer {
  /** By x-request-id (or `#<index>` when the request had none). */
  readonly served: Map<string, ServedCompletion>;
}

const event = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

export async function startCompletionsServer(options: CompletionsServerOptions): Promise<CompletionsServer> {
  const served = new Map<string, ServedCompletion>();
  const tokenText = options.tokenText ?? ' tok';
  const tokenizer = o200kTokenizer();
  const server = await startTestServer((request, res, index) => {
    const arrivedUs = nowUs();
    if (answeredBesidesPath(request, res, '/v1/completions', MODEL)) return;
    const body = parseJsonBody(request);
    if (body === null || typeof body.prompt !== 'string' || body.messages !== undefined) {
      openAiError(res, 400, 'a completions request needs a string prompt and no messages', 'invalid_request_error');
      return;
    }
    if (body.model !== MODEL && body.model !== ERROR_MIDSTREAM_MODEL) {
      openAiError(res, 404, `The model \`${String(body.model)}\` does not exist.`, 'NotFoundError');
      return;
    }
    const promptTokens = tokenizer.count(body.prompt);
    const record: ServedCompletion = { body, arrivedUs, textWrittenUs: [], promptTokens };
    const requestId = request.headers['x-request-id'];
    served.set(typeof requestId === 'string' ? requestId : `#${index}`, record);
    const timers = (res as ServerResponse & { timers: Set<NodeJS.Timeout> }).timers;
    const base = { id: `cmpl-${index}`, object: 'text_completion', created: 1_700_000_000, model: body.model };
    const choice = (text: string, finish: string | null) => ({ text, index: 0, logprobs: null, finish_reason: finish });
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: options.tokens,
      total_tokens: promptTokens + options.tokens,
    };
    // In the order scheduled, whatever the load (ordered-timers.ts).
    const at = orderedSchedule(res, timers);
    if (body.stream !== true) {
      at(options.firstTextMs, () => {
        const text = tokenText.repeat(options.tokens);
        sendJson(res, 200, { ...base, choices: [choice(text, 'length')], usage });
        record.textWrittenUs.push(nowUs());
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // An empty text right away: an event, but no token (TTFT must not stop here).
    res.write(event({ ...base, choices: [choice('', null)] }));
    const failAfter = body.model === ERROR_MIDSTREAM_MODEL ? 2 : Number.POSITIVE_INFINITY;
    const includeUsage =
      typeof body.stream_options === 'object' &&
      body.stream_options !== null &&
      (body.stream_options as Record<string, unknown>).include_usage === true;
    // Each token at its absolute time from the arrival (a timer per token, not chained: no drift; in order: ordered-timers.ts).
    for (let t = 0; t < options.tokens; t++) {
      at(options.firstTextMs + t * options.tokenMs, () => {
        if (t >= failAfter) {
          if (t === failAfter) {
            res.end(
              event({ error: { message: 'engine failed mid-stream', type: 'server_error', code: 'engine_error' } }),
            );
          }
          return;
        }
        res.write(event({ ...base, choices: [choice(tokenText, null)] }));
        record.textWrittenUs.push(nowUs());
        if (t < options.tokens - 1) return;
        res.write(event({ ...base, choices: [choice('', 'length')] }));
        if (includeUsage) res.write(event({ ...base, choices: [], usage }));
        res.end('data: [DONE]\n\n');
      });
    }
  });
  return { ...server, served };
}
