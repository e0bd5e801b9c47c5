/**
 * A purpose-built server (127.0.0.1, port 0) whose answers are well-formed HTTP and SSE but not always
 * valid answers: to a request with `tools` it streams one tool call of the first tool, and to a request
 * with a `response_format` it streams JSON content, cycling by the request's order through a valid answer
 * and deliberately invalid ones (a wrong type, a missing required field, arguments that are not JSON, an
 * unknown tool). Arguments and content are split over several events, as a real model streams them.
 * Answers GET /v1/models with one model; records what it received.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startTestServer, type TestServer } from './fault-servers.js';

export const INVALID_ANSWER_MODEL = 'sloppy-model';

/** The tool-call arguments sent in turn (for tool `lookup` with `{ id: integer, label: string }`, both required). */
export const TOOL_ANSWERS: readonly { readonly name: string; readonly arguments: string }[] = [
  { name: 'lookup', arguments: '{"id": 7, "label": "seven"}' },
  { name: 'lookup', arguments: '{"id": "7", "label": "seven"}' },
  { name: 'lookup', arguments: '{"label": "seven"}' },
  { name: 'lookup', arguments: '{"id": 7, "label": "sev' },
  { name: 'look_up', arguments: '{"id": 7, "label": "seven"}' },
];

/** The JSON contents sent in turn (for a schema `{ title: string, score: number }`, both required). */
export const JSON_ANSWERS: readonly string[] = [
  '{"title": "ok", "score": 0.9}',
  '{"title": "ok"}',
  'Here you go: {"title": "ok", "score": 1}',
];

const event = (delta: Record<string, unknown>, finish: string | null = null, extra = {}): string =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-sloppy',
    object: 'chat.completion.chunk',
    created: 1,
    model: INVALID_ANSWER_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  })}\n\n`;

/** `text` in pieces of about `size` characters (splitting JSON mid-token, as models do). */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const USAGE = { usage: { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 } };

function streamToolCall(res: ServerResponse, index: number): void {
  const answer = TOOL_ANSWERS[index % TOOL_ANSWERS.length]!;
  let out = event({ role: 'assistant', content: null });
  out += event({
    tool_calls: [{ index: 0, id: `call_${index}`, type: 'function', function: { name: answer.name, arguments: '' } }],
  });
  for (const part of pieces(answer.arguments, 5))
    out += event({ tool_calls: [{ index: 0, function: { arguments: part } }] });
  res.end(out + event({}, 'tool_calls', USAGE));
}

function streamJson(res: ServerResponse, index: number): void {
  const answer = JSON_ANSWERS[index % JSON_ANSWERS.length]!;
  let out = event({ role: 'assistant', content: '' });
  for (const part of pieces(answer, 4)) out += event({ content: part });
  res.end(out + event({}, 'stop', USAGE));
}

/** Starts the server; tool answers and JSON answers cycle apart, each in the order requests arrive. */
export async function startInvalidAnswerServer(): Promise<TestServer> {
  let tools = 0;
  let json = 0;
  return startTestServer((req, res) => {
    if (req.method === 'GET') {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: INVALID_ANSWER_MODEL, object: 'model', created: 0, owned_by: 'test' }],
      });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (Array.isArray(body['tools'])) streamToolCall(res, tools++);
    else streamJson(res, json++);
  });
}
