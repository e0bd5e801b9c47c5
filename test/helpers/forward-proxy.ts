/**
 * A small forward proxy on 127.0.0.1 port 0 (node:http), as a corporate HTTP_PROXY / HTTPS_PROXY would
 * be: absolute-form requests (`POST http://host:port/path`) are forwarded and counted one by one; CONNECT
 * host:port opens a tunnel (counted per tunnel: what goes through it is encrypted). With `credentials`
 * it answers 407 to anything without the matching Proxy-Authorization.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback-server.js';

export interface ForwardProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly stats: {
    /** Absolute-form requests forwarded (one per HTTP request). */
    forwarded: number;
    /** CONNECT tunnels opened (one per connection). */
    tunnels: number;
    /** Requests refused for missing or wrong credentials. */
    refused: number;
    /** Absolute-form targets, e.g. "http://127.0.0.1:1234/v1/models". */
    targets: string[];
  };
  close(): Promise<void>;
}

export async function startForwardProxy(options: { credentials?: string } = {}): Promise<ForwardProxy> {
  const stats: ForwardProxy['stats'] = { forwarded: 0, tunnels: 0, refused: 0, targets: [] };
  // Tunnels and upstream requests are tracked once the listener exists (they start after it).
  let track: (socket: Socket) => void = () => {};
  const expected =
    options.credentials === undefined ? null : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const authorized = (req: IncomingMessage): boolean =>
    expected === null || req.headers['proxy-authorization'] === expected;
  const server = createServer((req, res) => {
    if (!authorized(req)) {
      stats.refused++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const url = req.url ?? '';
    if (!url.startsWith('http://')) {
      res.writeHead(400).end('not a proxy request');
      return;
    }
    stats.forwarded++;
    stats.targets.push(url);
    const { 'proxy-authorization': _auth, 'proxy-connection': _pc, ...headers } = req.headers;
    const upstream = httpRequest(url, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (!authorized(req)) {
      stats.refused++;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    stats.tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect({ host: host ?? '127.0.0.1', port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    track(upstream);
    upstream.on('close', () => client.destroy());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const listener = await listenOnLoopback(server);
  track = listener.track;
  return {
    url: `http://127.0.0.1:${listener.port}`,
    stats,
    close: () => listener.close(),
  };
}
