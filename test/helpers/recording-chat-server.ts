/**
 * A purpose-built chat server that records what it received: every chat completion body (parsed) with its
 * x-request-id, answered at once with a short stream of text and usage (prompt_tokens as the client
 * expects them: not checked here). GET /v1/models lists RECORDING_MODEL. For tests of what the workload
 * sends: prompts, prefixes, prompt_cache_key.
 */
import type { ServerResponse } from 'node:http';
import { chunk, sendJson, sseData, startTestServer, type TestServer } from './fault-servers.js';

export const RECORDING_MODEL = 'recording-model';

export interface ReceivedChat {
  readonly requestId: string | null;
  readonly body: Record<string, unknown>;
}

export interface RecordingChatServer extends TestServer {
  /** Chat completion requests in arrival order. */
  readonly chats: ReceivedChat[];
}

export async function startRecordingChatServer(): Promise<RecordingChatServer> {
  const chats: ReceivedChat[] = [];
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: [{ id: RECORDING_MODEL, object: 'model', owned_by: 'test' }] });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    const id = req.headers['x-request-id'];
    chats.push({ requestId: typeof id === 'string' ? id : null, body });
    answer(res);
  });
  return Object.assign(server, { chats });
}

function answer(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(sseData(chunk({ role: 'assistant', content: '' })));
  res.write(sseData(chunk({ content: 'Fine, thanks.' })));
  const usage = { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 };
  res.end(sseData(chunk({}, 'stop', { usage })));
}
