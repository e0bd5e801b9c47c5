/**
 * A Responses server (POST /v1/responses, OpenAI's Responses API) with KNOWN timing and token counts, on
 * 127.0.0.1 port 0. A stream opens at once with `response.created`, `response.in_progress`, the message's
 * `response.output_item.added` and `response.content_part.added` (bookkeeping: no token), then sends the
 * first `response.output_text.delta` `firstTextMs` after the request arrived and one every `tokenMs`,
 * `tokens` tokens of `tokenText` each (fewer when `max_output_tokens` is lower), then the `.done` events
 * and `response.completed` (or `response.incomplete` with reason max_output_tokens when the answer
 * reached max_output_tokens), whose usage counts the input with o200k (input_tokens) and the tokens sent
 * (output_tokens), `cachedTokens` of the input as cached. Every event has an `event:` line and a
 * `sequence_number`, as OpenAI sends them.
 * `stream: false` gets the whole `response` object at the first-text time.
 *
 * It stamps, on the process's performance clock (util/clock.ts nowUs, the client's clock in-process),
 * when it wrote each token event, per request under the request's x-request-id: a test compares the
 * client's first-token stamp with the server's write of the same event, on one clock.
 *
 * Models: `MODEL` answers text; `REASONING_MODEL` sends `reasoningTokens` reasoning summary deltas (one
 * tokenMs apart, the first at firstTextMs) before the text and counts them in
 * output_tokens_details.reasoning_tokens; `TOOL_MODEL` answers with one function_call item (`get_weather`,
 * its name in output_item.added, then `tokens` argument deltas making `{"city":"Paris"}`-like JSON);
 * `FAILED_MODEL` sends two tokens then `response.failed`; `ERROR_EVENT_MODEL` two tokens then an `error`
 * event; `NO_USAGE_MODEL` answers like MODEL with `usage: null`; any other model gets a 404 in OpenAI's error shape. A body that is not a Responses request (no
 * `input`, or chat's `messages`, or `stream_options`) gets a 400. GET /v1/models lists MODEL.
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

export const MODEL = 'responses-model';
export const REASONING_MODEL = 'responses-reasoning';
export const TOOL_MODEL = 'responses-tool';
export const FAILED_MODEL = 'responses-failed';
export const ERROR_EVENT_MODEL = 'responses-error-event';
export const NO_USAGE_MODEL = 'responses-no-usage';
const MODELS = [MODEL, REASONING_MODEL, TOOL_MODEL, FAILED_MODEL, ERROR_EVENT_MODEL, NO_USAGE_MODEL];

/** The argument deltas of TOOL_MODEL's call (joined: its JSON arguments): `tokens` of them, `{`, one key each, `}`. */
export function toolArgumentDeltas(tokens: number): string[] {
  if (tokens < 2) return ['{}'];
  const keys = Array.from({ length: tokens - 2 }, (_, i) => `${i === 0 ? '' : ','}"k${i}":${i}`);
  return ['{', ...keys, '}'];
}

export interface ResponsesServerOptions {
  /** The first token event this long after the request arrived. */
  readonly firstTextMs: number;
  /** Then one token event every `tokenMs`. */
  readonly tokenMs: number;
  /** Answer tokens per response (one per event). */
  readonly tokens: number;
  /** REASONING_MODEL's reasoning tokens, before the answer (default 3). */
  readonly reasoningTokens?: number;
  /** Text of each token: one o200k token (default " tok"). */
  readonly tokenText?: string;
  /** input_tokens_details.cached_tokens of every answer (default 0). */
  readonly cachedTokens?: number;
}

/** What the server did for one request. */
export interface ServedResponse {
  readonly body: Record<string, unknown>;
  /** nowUs() when the request was handled (its body read). */
  readonly arrivedUs: number;
  /** nowUs() right after each token event was written (the first is the first token). */
  readonly textWrittenUs: number[];
  readonly inputTokens: number;
}

export interface ResponsesServer extends TestServer {
  /** By x-request-id (or `#<index>` when the request had none). */
  readonly served: Map<string, ServedResponse>;
}

/** Every text of `input` (a string, or message items with string or input_text content), joined. */
function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  const texts: string[] = [];
  for (const item of input as Record<string, unknown>[]) {
    const content = item.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content))
      for (const part of content as Record<string, unknown>[]) if (typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('');
}

export async function startResponsesServer(options: ResponsesServerOptions): Promise<ResponsesServer> {
  const served = new Map<string, ServedResponse>();
  const tokenText = options.tokenText ?? ' tok';
  const tokenizer = o200kTokenizer();
  const server = await startTestServer((request, res, index) => {
    const arrivedUs = nowUs();
    if (answeredBesidesPath(request, res, '/v1/responses', MODEL)) return;
    const body = parseJsonBody(request);
    if (body === null || body.input === undefined || body.messages !== undefined || body.stream_options !== undefined) {
      openAiError(
        res,
        400,
        'a Responses request has input, and no messages or stream_options',
        'invalid_request_error',
      );
      return;
    }
    const model = String(body.model);
    if (!MODELS.includes(model)) {
      openAiError(res, 404, `The model \`${model}\` does not exist.`, 'NotFoundError');
      return;
    }
    const inputTokens = tokenizer.count(inputText(body.input));
    const record: ServedResponse = { body, arrivedUs, textWrittenUs: [], inputTokens };
    const requestId = request.headers['x-request-id'];
    served.set(typeof requestId === 'string' ? requestId : `#${index}`, record);
    const timers = (res as ServerResponse & { timers: Set<NodeJS.Timeout> }).timers;
    // In the order scheduled, whatever the load (ordered-timers.ts).
    const at = orderedSchedule(res, timers);

    const maxOutput = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : Number.POSITIVE_INFINITY;
    const reasoningTokens = model === REASONING_MODEL ? (options.reasoningTokens ?? 3) : 0;
    const answerTokens = Math.max(0, Math.min(options.tokens, maxOutput - reasoningTokens));
    const cut = reasoningTokens + answerTokens >= maxOutput;
    const isTool = model === TOOL_MODEL;
    const argumentDeltas = isTool ? toolArgumentDeltas(answerTokens) : [];
    const id = `resp_${index}`;
    const messageId = `msg_${index}`;
    const reasoningId = `rs_${index}`;
    const callId = `call_${index}`;
    const answerIndex = reasoningTokens > 0 ? 1 : 0;
    const answerText = tokenText.repeat(answerTokens);
    const reasoningText = tokenText.repeat(reasoningTokens);
    const usage = {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: Math.min(inputTokens, options.cachedTokens ?? 0), cache_write_tokens: 0 },
      output_tokens: reasoningTokens + answerTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: inputTokens + reasoningTokens + answerTokens,
    };
    const messageItem = (text: string, status: string) => ({
      id: messageId,
      type: 'message',
      role: 'assistant',
      status,
      content: text === '' && status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [] }],
    });
    const callItem = (args: string, status: string) => ({
      id: `fc_${index}`,
      type: 'function_call',
      call_id: callId,
      name: 'get_weather',
      arguments: args,
      status,
    });
    const reasoningItem = (text: string) => ({
      id: reasoningId,
      type: 'reasoning',
      summary: text === '' ? [] : [{ type: 'summary_text', text }],
    });
    const finalOutput = (): Record<string, unknown>[] => [
      ...(reasoningTokens > 0 ? [reasoningItem(reasoningText)] : []),
      isTool ? callItem(argumentDeltas.join(''), 'completed') : messageItem(answerText, 'completed'),
    ];
    const responseObject = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
      id,
      object: 'response',
      created_at: 1_700_000_000,
      model,
      status,
      output,
      error: null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: null,
      metadata: {},
      parallel_tool_calls: true,
      temperature: typeof body.temperature === 'number' ? body.temperature : 1,
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      usage: status === 'in_progress' || model === NO_USAGE_MODEL ? null : usage,
      ...extra,
    });

    if (body.stream !== true) {
      at(options.firstTextMs, () => {
        sendJson(res, 200, responseObject(cut ? 'incomplete' : 'completed', finalOutput()));
        record.textWrittenUs.push(nowUs());
      });
      return;
    }

    let sequence = 0;
    const send = (payload: Record<string, unknown>): void => {
      const type = String(payload.type);
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...payload })}\n\n`);
      sequence += 1;
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send({ type: 'response.created', response: responseObject('in_progress', []) });
    send({ type: 'response.in_progress', response: responseObject('in_progress', []) });
    if (reasoningTokens > 0) send({ type: 'response.output_item.added', output_index: 0, item: reasoningItem('') });
    // The tool call's item names its function: that is a token, sent with the first argument delta's timer.
    if (!isTool) {
      send({ type: 'response.output_item.added', output_index: answerIndex, item: messageItem('', 'in_progress') });
      send({
        type: 'response.content_part.added',
        item_id: messageId,
        output_index: answerIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    const failAfter = model === FAILED_MODEL || model === ERROR_EVENT_MODEL ? 2 : Number.POSITIVE_INFINITY;
    const steps = reasoningTokens + (isTool ? argumentDeltas.length : answerTokens);
    const tokenEvent = (t: number): Record<string, unknown> => {
      if (t < reasoningTokens)
        return {
          type: 'response.reasoning_summary_text.delta',
          item_id: reasoningId,
          output_index: 0,
          summary_index: 0,
          delta: tokenText,
        };
      if (isTool)
        return {
          type: 'response.function_call_arguments.delta',
          item_id: `fc_${index}`,
          output_index: answerIndex,
          delta: argumentDeltas[t - reasoningTokens],
        };
      return {
        type: 'response.output_text.delta',
        item_id: messageId,
        output_index: answerIndex,
        content_index: 0,
        delta: tokenText,
        logprobs: [],
      };
    };
    const finish = (): void => {
      if (isTool) {
        send({
          type: 'response.function_call_arguments.done',
          item_id: `fc_${index}`,
          output_index: answerIndex,
          name: 'get_weather',
          arguments: argumentDeltas.join(''),
        });
      } else {
        send({
          type: 'response.output_text.done',
          item_id: messageId,
          output_index: answerIndex,
          content_index: 0,
          text: answerText,
          logprobs: [],
        });
        send({
          type: 'response.content_part.done',
          item_id: messageId,
          output_index: answerIndex,
          content_index: 0,
          part: { type: 'output_text', text: answerText, annotations: [] },
        });
      }
      const output = finalOutput();
      send({ type: 'response.output_item.done', output_index: answerIndex, item: output[answerIndex] });
      const status = cut ? 'incomplete' : 'completed';
      send({ type: `response.${status}`, response: responseObject(status, output) });
      res.end();
    };
    // Each token at its absolute time from the arrival (a timer per token, not chained: no drift; in order: ordered-timers.ts).
    for (let t = 0; t < steps; t++) {
      at(options.firstTextMs + t * options.tokenMs, () => {
        if (t > failAfter) return;
        if (t === failAfter) {
          if (model === FAILED_MODEL) {
            const error = { code: 'server_error', message: 'engine failed mid-stream' };
            send({ type: 'response.failed', response: responseObject('failed', [], { error, usage: null }) });
          } else {
            send({ type: 'error', code: 'engine_error', message: 'engine failed mid-stream', param: null });
          }
          res.end();
          return;
        }
        if (isTool && t === reasoningTokens)
          send({ type: 'response.output_item.added', output_index: answerIndex, item: callItem('', 'in_progress') });
        send(tokenEvent(t));
        record.textWrittenUs.push(nowUs());
        if (t === steps - 1) finish();
      });
    }
  });
  return { ...server, served };
}
