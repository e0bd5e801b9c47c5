/**
 * A purpose-built chat server that records every chat completion body (parsed) with the time it arrived,
 * and answers each, after `delayMs`, with the short "Hello world!" stream and usage. Any GET answers a model
 * list of ARRIVAL_MODEL (the run's model pre-flight and price lookup). For tests of what a schedule sends
 * and when: one arrival stream shared by a mix's classes, the bodies of each class and effort.
 */
import { helloStream, sendJson, startTestServer, type TestServer } from './fault-servers.js';

export const ARRIVAL_MODEL = 'arrival-model';

export interface ArrivedChat {
  readonly body: Record<string, unknown>;
  /** performance.now() when its headers arrived. */
  readonly arrivedMs: number;
}

export interface ArrivalRecordingServer extends TestServer {
  /** Chat completion requests in arrival order. */
  readonly chats: ArrivedChat[];
}

export async function startArrivalRecordingServer(delayMs = 0): Promise<ArrivalRecordingServer> {
  const chats: ArrivedChat[] = [];
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: [{ id: ARRIVAL_MODEL, object: 'model', owned_by: 'test' }] });
      return;
    }
    chats.push({ body: JSON.parse(req.body.toString('utf8')) as Record<string, unknown>, arrivedMs: req.arrivedMs });
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(helloStream().join(''));
    };
    if (delayMs > 0) {
      const timer = setTimeout(answer, delayMs);
      res.once('close', () => clearTimeout(timer));
    } else answer();
  });
  return Object.assign(server, { chats });
}
