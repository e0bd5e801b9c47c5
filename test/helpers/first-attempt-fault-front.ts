/**
 * A front for any purpose-built API server, on 127.0.0.1 port 0: the first POST of each request (by its
 * x-request-id, which every attempt of a retried request repeats) is answered `503` with an OpenAI-shaped
 * error body, every other request (the retry, GET /v1/models) is forwarded to the upstream as it came and
 * its answer streamed back as it goes. One fault for every API, so a retry test needs no fault mode in
 * each API's server.
 */
import { createServer, request as httpRequest } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

export interface FaultFront {
  /** http://127.0.0.1:<port>, the base URL to give the client. */
  readonly url: string;
  /** POSTs answered 503 (one per request id). */
  readonly refused: () => number;
  close(): Promise<void>;
}

export async function startFirstAttemptFaultFront(upstream: string): Promise<FaultFront> {
  const seen = new Set<string>();
  let refused = 0;
  const server = createServer((req, res) => {
    const id = req.headers['x-request-id'];
    if (req.method === 'POST' && typeof id === 'string' && !seen.has(id)) {
      seen.add(id);
      refused++;
      req.resume();
      const body = JSON.stringify({ error: { message: 'busy, try again', type: 'server_error', code: 'busy' } });
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const target = new URL(req.url ?? '/', upstream);
    const forward = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('socket', (socket) => listener.track(socket));
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  const listener = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${listener.port}`, refused: () => refused, close: () => listener.close() };
}
