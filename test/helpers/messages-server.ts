/**
 * An Anthropic Messages server (POST /v1/messages, anthropic-version 2023-06-01) with KNOWN timing and
 * token counts, on 127.0.0.1 port 0. It emits exactly the event sequence Anthropic documents
 * (platform.claude.com/docs/en/build-with-claude/streaming): `message_start` (usage: input_tokens,
 * cache_read_input_tokens, cache_creation_input_tokens, output_tokens 1), `content_block_start`
 * (text ""), a `ping`, all at once (events, no token); then one `content_block_delta` `text_delta` every
 * `tokenMs` from `firstTextMs` after the request arrived; `content_block_stop`, `message_delta`
 * (stop_reason max_tokens, cumulative usage.output_tokens = `tokens`), `message_stop`. No `[DONE]`.
 *
 * Prompt tokens are the o200k counts of the system text and of each message's text it received, summed; `cachedTokens` of them are
 * reported as cache_read_input_tokens and the rest as input_tokens (Anthropic's split). `stream` absent
 * or false gets the whole `message` body at the first-text time.
 *
 * It stamps on the process's performance clock (util/clock.ts nowUs) when it wrote each text delta, per
 * x-request-id, and keeps every request's headers (the key header checked by the tests).
 *
 * Models: MODEL answers; THINKING_MODEL first streams a thinking block (two thinking_delta and a
 * signature_delta), then the text; TOOL_MODEL streams a tool_use block (input_json_delta in two pieces,
 * stop_reason tool_use); ERROR_EVENT_MODEL sends two tokens then `event: error` (overloaded_error) and
 * ends; OVERLOADED_MODEL gets HTTP 529 with Anthropic's error body; any other model a 404. A request
 * without `anthropic-version`, without the key (when the server has one) or with an OpenAI-only field
 * (max_completion_tokens, stream_options, n, stop, prompt_cache_key...) or without max_tokens gets
 * Anthropic's 400/401. GET /v1/models lists MODEL, with the key and `anthropic-version` as Anthropic asks them of
 * every request. Every answer carries Anthropic's own id header, `request-id: req_<index>`.
 */
import type { ServerResponse } from 'node:http';
import { nowUs } from '../../src/util/clock.js';
import { o200kTokenizer } from '../../src/util/tokenizer.js';
import { startTestServer, type CapturedRequest, type TestServer, sendJson, parseJsonBody } from './fault-servers.js';
import { orderedSchedule } from './ordered-timers.js';

export const MODEL = 'claude-test';
export const THINKING_MODEL = 'claude-test-thinking';
export const TOOL_MODEL = 'claude-test-tool';
export const ERROR_EVENT_MODEL = 'claude-test-error-event';
export const OVERLOADED_MODEL = 'claude-test-overloaded';
const MODELS = new Set([MODEL, THINKING_MODEL, TOOL_MODEL, ERROR_EVENT_MODEL]);

/** Fields of OpenAI's chat body that Anthropic rejects ("Extra inputs are not permitted"). */
const OPENAI_ONLY = [
  'max_completion_tokens',
  'stream_options',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'prompt_cache_key',
  'service_tier',
  'response_format',
  'reasoning_effort',
  'user',
  'parallel_tool_calls',
];

export const TOOL_ARGUMENTS = ['{"city": ', '"Paris"}'] as const;

export interface MessagesServerOptions {
  readonly firstTextMs: number;
  readonly tokenMs: number;
  readonly tokens: number;
  /** Text of each token: one o200k token (default " tok"). */
  readonly tokenText?: string;
  /** Prompt tokens reported as cache_read_input_tokens (default 0). */
  readonly cachedTokens?: number;
  /** The key x-api-key must carry; null: none required. */
  readonly apiKey?: string | null;
}

export interface ServedMessage {
  readonly body: Record<string, unknown>;
  readonly headers: CapturedRequest['headers'];
  readonly arrivedUs: number;
  /** nowUs() right after each text_delta was written. */
  readonly textWrittenUs: number[];
  readonly promptTokens: number;
}

export interface MessagesServer extends TestServer {
  /** By x-request-id (or `#<index>`). */
  readonly served: Map<string, ServedMessage>;
}

const sse = (name: string, payload: unknown): string => `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;

/** Anthropic's error body. */
function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('');
}

/** Why `body` is no Messages request; null when it is. */
function bodyProblem(body: Record<string, unknown> | null): string | null {
  if (body === null) return 'the body is not a JSON object';
  for (const field of OPENAI_ONLY) if (field in body) return `${field}: Extra inputs are not permitted`;
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: Field required';
  for (const message of body.messages as { role?: unknown }[])
    if (message.role !== 'user' && message.role !== 'assistant')
      return `messages: Unexpected role "${String(message.role)}". Allowed roles are "user" or "assistant"`;
  return null;
}

export async function startMessagesServer(options: MessagesServerOptions): Promise<MessagesServer> {
  const served = new Map<string, ServedMessage>();
  const tokenText = options.tokenText ?? ' tok';
  const cached = options.cachedTokens ?? 0;
  const tokenizer = o200kTokenizer();
  const server = await startTestServer((request, res, index) => {
    const arrivedUs = nowUs();
    const key = request.headers['x-api-key'];
    if ((options.apiKey ?? null) !== null && key !== options.apiKey) {
      anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
      return;
    }
    res.setHeader('request-id', `req_${index}`);
    if (request.method === 'GET' && request.url.endsWith('/v1/models')) {
      if (request.headers['anthropic-version'] !== '2023-06-01') {
        anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
        return;
      }
      sendJson(res, 200, {
        data: [{ type: 'model', id: MODEL, display_name: 'Claude Test', created_at: '2025-01-01T00:00:00Z' }],
        has_more: false,
        first_id: MODEL,
        last_id: MODEL,
      });
      return;
    }
    if (request.method !== 'POST' || !request.url.endsWith('/v1/messages')) {
      anthropicError(res, 404, 'not_found_error', `Unknown path ${request.url}`);
      return;
    }
    if (request.headers['anthropic-version'] !== '2023-06-01') {
      anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
      return;
    }
    const body = parseJsonBody(request);
    const problem = bodyProblem(body);
    if (body === null || problem !== null) {
      anthropicError(res, 400, 'invalid_request_error', problem ?? 'invalid body');
      return;
    }
    if (body.model === OVERLOADED_MODEL) {
      anthropicError(res, 529, 'overloaded_error', 'Overloaded');
      return;
    }
    const model = String(body.model);
    if (!MODELS.has(model)) {
      anthropicError(res, 404, 'not_found_error', `model: ${model}`);
      return;
    }
    const messages = body.messages as { content?: unknown }[];
    // Each text counted on its own (a model sees the system prompt and each turn apart).
    const texts = [textOf(body.system), ...messages.map((message) => textOf(message.content))];
    const promptTokens = texts.reduce((sum, text) => sum + tokenizer.count(text), 0);
    const record: ServedMessage = { body, headers: request.headers, arrivedUs, textWrittenUs: [], promptTokens };
    const requestId = request.headers['x-request-id'];
    served.set(typeof requestId === 'string' ? requestId : `#${index}`, record);
    const timers = (res as ServerResponse & { timers: Set<NodeJS.Timeout> }).timers;
    // In the order scheduled, whatever the load (ordered-timers.ts).
    const at = orderedSchedule(res, timers);
    const id = `msg_${index}`;
    const tool = model === TOOL_MODEL;
    const stopReason = tool ? 'tool_use' : 'max_tokens';
    // Thinking counts in output_tokens, as Anthropic bills it: the two thinking tokens and the text.
    const outputTokens = options.tokens + (model === THINKING_MODEL ? 2 : 0);
    const usageStart = {
      input_tokens: promptTokens - cached,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
      output_tokens: 1,
    };
    if (body.stream !== true) {
      at(options.firstTextMs, () => {
        const content = tool
          ? [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }]
          : [{ type: 'text', text: tokenText.repeat(options.tokens) }];
        sendJson(res, 200, {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { ...usageStart, output_tokens: outputTokens },
        });
        record.textWrittenUs.push(nowUs());
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(
      sse('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageStart,
        },
      }),
    );
    const delta = (block: number, d: Record<string, unknown>): string =>
      sse('content_block_delta', { type: 'content_block_delta', index: block, delta: d });
    let textBlock = 0;
    if (model === THINKING_MODEL) {
      // Reasoning first: its own block, sent at once (tokens, but no answer).
      res.write(
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'thinking', thinking: '' },
        }),
      );
      res.write(delta(0, { type: 'thinking_delta', thinking: ' think' }));
      res.write(delta(0, { type: 'thinking_delta', thinking: ' more' }));
      res.write(delta(0, { type: 'signature_delta', signature: 'c2ln' }));
      res.write(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
      textBlock = 1;
    }
    const end = (): void => {
      res.write(sse('content_block_stop', { type: 'content_block_stop', index: textBlock }));
      res.write(
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: outputTokens },
        }),
      );
      res.end(sse('message_stop', { type: 'message_stop' }));
    };
    if (tool) {
      res.write(
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
        }),
      );
      TOOL_ARGUMENTS.forEach((piece, t) => {
        at(options.firstTextMs + t * options.tokenMs, () => {
          res.write(delta(0, { type: 'input_json_delta', partial_json: piece }));
          if (t === TOOL_ARGUMENTS.length - 1) end();
        });
      });
      return;
    }
    res.write(
      sse('content_block_start', {
        type: 'content_block_start',
        index: textBlock,
        content_block: { type: 'text', text: '' },
      }),
    );
    res.write(sse('ping', { type: 'ping' }));
    const failAfter = model === ERROR_EVENT_MODEL ? 2 : Number.POSITIVE_INFINITY;
    for (let t = 0; t < options.tokens; t++) {
      at(options.firstTextMs + t * options.tokenMs, () => {
        if (t > failAfter) return;
        if (t === failAfter) {
          res.end(sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
          return;
        }
        res.write(delta(textBlock, { type: 'text_delta', text: tokenText }));
        record.textWrittenUs.push(nowUs());
        // A ping between tokens too: it must change nothing.
        if (t === 0) res.write(sse('ping', { type: 'ping' }));
        if (t === options.tokens - 1) end();
      });
    }
  });
  return { ...server, served };
}
