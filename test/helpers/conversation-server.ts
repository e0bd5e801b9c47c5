/**
 * A purpose-built server for conversations (sessions, the tool loop): it answers every chat completion
 * with text it makes up and remembers (`answers[i]` is the content of request i's answer), streamed in a
 * few chunks with usage, and records every request body and when it arrived and when its answer ended.
 * With `toolCallsFor`, a request that offers tools is answered with that many tool calls (ids unique per
 * request: `call_<request>_<j>`) instead of text, while `toolCallsFor(body)` returns more than 0; with
 * `failFor`, chosen requests fail with an HTTP error.
 */
import type { ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from './fault-servers.js';

export const CONVERSATION_MODEL = 'conversation-model';

export interface ConversationServerOptions {
  /** Tool calls to answer `body` with (0: text); absent: always text. */
  readonly toolCallsFor?: (body: Record<string, unknown>) => number;
  /** Delay before the answer's first chunk, ms (default 0). */
  readonly delayMs?: number;
  /** An HTTP status to fail `body` with (0 or absent: answer it). */
  readonly failFor?: (body: Record<string, unknown>) => number;
}

export interface ConversationServer extends TestServer {
  /** Parsed chat completion bodies, in arrival order. */
  readonly bodies: Record<string, unknown>[];
  /** The content each request was answered with ('' for tool calls), by request index. */
  readonly answers: string[];
  /** performance.now() when each request arrived and when its answer was fully written. */
  readonly arrivedMs: number[];
  readonly endedMs: number[];
}

export async function startConversationServer(options: ConversationServerOptions = {}): Promise<ConversationServer> {
  const bodies: Record<string, unknown>[] = [];
  const answers: string[] = [];
  const arrivedMs: number[] = [];
  const endedMs: number[] = [];
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/v1/models')) {
      json(res, 200, {
        object: 'list',
        data: [{ id: CONVERSATION_MODEL, object: 'model', created: 0, owned_by: 't' }],
      });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    const index = bodies.length;
    bodies.push(body);
    arrivedMs.push(req.arrivedMs);
    const failure = options.failFor?.(body) ?? 0;
    if (failure > 0) {
      answers[index] = '';
      endedMs[index] = performance.now();
      json(res, failure, { message: 'failed on purpose', type: 'server_error', param: null, code: null });
      return;
    }
    const calls = Array.isArray(body.tools) && options.toolCallsFor ? options.toolCallsFor(body) : 0;
    const messages = body.messages as unknown[];
    const text = calls > 0 ? '' : `Answer number ${index} after ${messages.length} messages.`;
    answers[index] = text;
    const toolCalls = Array.from({ length: calls }, (_, j) => ({
      index: j,
      id: `call_${index}_${j}`,
      type: 'function',
      function: { name: (body.tools as { function: { name: string } }[])[0]!.function.name, arguments: `{"n":${j}}` },
    }));
    const respond = (): void => {
      streamAnswer(res, body, index, text, toolCalls);
      endedMs[index] = performance.now();
    };
    if (options.delayMs) setTimeout(respond, options.delayMs);
    else respond();
  });
  return Object.assign(server, { bodies, answers, arrivedMs, endedMs });
}

function streamAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  index: number,
  text: string,
  toolCalls: readonly Record<string, unknown>[],
): void {
  const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
  const usage = { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 };
  const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    const message = {
      role: 'assistant',
      content: toolCalls.length > 0 ? null : text,
      tool_calls: toolCalls.length > 0 ? toolCalls : null,
    };
    json(res, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ ...base, choices: choice ? [{ index: 0, ...choice }] : [], ...extra })}\n\n`);
  };
  event({ delta: { role: 'assistant', content: '' }, finish_reason: null });
  if (toolCalls.length > 0) event({ delta: { tool_calls: toolCalls }, finish_reason: null });
  // The text in three pieces, so the client must join chunks to get it back.
  const third = Math.ceil(text.length / 3);
  for (let at = 0; at < text.length; at += third)
    event({ delta: { content: text.slice(at, at + third) }, finish_reason: null });
  event({ delta: {}, finish_reason: finish });
  event(null, { usage });
  res.end('data: [DONE]\n\n');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
