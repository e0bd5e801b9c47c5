/**
 * A small local HTTP server for what a run shows while it goes: GET routes that answer a text body made
 * at each request (Prometheus' /metrics, the dashboard's page) and routes that stream server-sent events
 * (the dashboard's updates). It lives here because DESIGN gives node:http to emulator/ alone among the
 * layers a run uses; it knows nothing of the emulator or of the harness: cli/ composes it with what the
 * run measures. Read-only by design: GET and HEAD only, nothing a request says changes any state.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A route answered with a body made when it is asked for (so it always shows the run as it stands); a
 * promise for producers that make it asynchronously (prom-client's registry).
 */
export interface TextRoute {
  readonly kind: 'text';
  readonly contentType: string;
  readonly body: () => string | Promise<string>;
  /** Extra response headers (a page's Content-Security-Policy, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Called once a 200 answer has been handed to the socket in full (/metrics: "the last values were read"). */
  readonly onSent?: () => void;
}

/**
 * One open event stream: `send` writes one server-sent event, skipped while the reader is too far behind
 * unless `always` (the last event, e.g. a dashboard's `end`: bounded, and what the page waits for);
 * `closed` tells the producer to stop.
 */
export interface EventSink {
  send(event: string, data: string, always?: boolean): void;
  readonly closed: boolean;
}

/** A route that streams server-sent events: `subscribe` is called per client, returns its unsubscribe. */
export interface EventRoute {
  readonly kind: 'events';
  readonly subscribe: (sink: EventSink) => () => void;
}

export type LiveRoute = TextRoute | EventRoute;

export interface LivePageServerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** Path (without query) -> route. */
  readonly routes: ReadonlyMap<string, LiveRoute>;
}

export interface LivePageServer {
  /** http://host:port, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Ends every event stream, stops listening and closes every connection. */
  close(): Promise<void>;
}

/** A slow reader's stream is skipped past this many buffered bytes rather than growing without bound. */
const MAX_BUFFERED_BYTES = 1 << 20;
/** A comment line this often keeps idle event streams open through proxies that close quiet sockets. */
const HEARTBEAT_MS = 15_000;
/** On close, how long ended event streams get to flush their last events before their sockets are cut. */
const CLOSE_FLUSH_MS = 1_000;

/** Starts listening; rejects (EADDRINUSE, EACCES, ...) when the port cannot be had. */
export function startLivePageServer(options: LivePageServerOptions): Promise<LivePageServer> {
  const streams = new Set<() => Promise<void>>();
  const server = createServer({ keepAliveTimeout: 5_000, headersTimeout: 10_000, requestTimeout: 10_000 }, (req, res) =>
    answer(req, res, options.routes, streams),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : options.port;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({ url: `http://${host}:${port}`, port, close: () => closeServer(server, streams) });
    });
  });
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  routes: ReadonlyMap<string, LiveRoute>,
  streams: Set<() => Promise<void>>,
): void {
  res.setHeader('x-content-type-options', 'nosniff');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET only\n');
    return;
  }
  const path = (req.url ?? '/').split('?', 1)[0] as string;
  const route = routes.get(path);
  if (route === undefined) {
    const known = [...routes.keys()].join(', ');
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found; this server has ${known}\n`);
    return;
  }
  if (route.kind === 'text') answerText(req, res, route);
  else openEventStream(req, res, route, streams);
}

function answerText(req: IncomingMessage, res: ServerResponse, route: TextRoute): void {
  let made: string | Promise<string>;
  try {
    made = route.body();
  } catch (error) {
    failText(res, error);
    return;
  }
  if (typeof made === 'string') sendText(req, res, route, made);
  else
    made.then(
      (body) => sendText(req, res, route, body),
      (error: unknown) => failText(res, error),
    );
}

/** A broken producer is a 500 for this request, never a crash of the run it is showing. */
function failText(res: ServerResponse, error: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`could not make this page: ${error instanceof Error ? error.message : String(error)}\n`);
}

function sendText(req: IncomingMessage, res: ServerResponse, route: TextRoute, body: string): void {
  if (res.destroyed) return;
  res.writeHead(200, {
    'content-type': route.contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...route.headers,
  });
  const onSent = route.onSent;
  if (onSent) res.once('finish', onSent);
  res.end(req.method === 'HEAD' ? undefined : body);
}

function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  route: EventRoute,
  streams: Set<() => Promise<void>>,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.write('retry: 1000\n\n');
  const sink = {
    closed: false,
    send(event: string, data: string, always = false): void {
      if (sink.closed || (!always && res.writableLength > MAX_BUFFERED_BYTES)) return;
      // Every line of the data gets its own `data:` field, as the SSE format requires.
      res.write(`event: ${event}\ndata: ${data.replaceAll('\n', '\ndata: ')}\n\n`);
    },
  };
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  let unsubscribe: () => void = () => undefined;
  // Settles once the response is flushed to the socket or the socket is gone.
  const flushed = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  const end = (): Promise<void> => {
    if (!sink.closed) {
      sink.closed = true;
      clearInterval(heartbeat);
      streams.delete(end);
      unsubscribe();
      res.end();
    }
    return flushed;
  };
  streams.add(end);
  res.on('close', end);
  unsubscribe = route.subscribe(sink);
}

async function closeServer(server: Server, streams: Set<() => Promise<void>>): Promise<void> {
  // The last events sent (a dashboard's `end`) reach their readers first: closing the server would cut
  // a stream whose response has ended as an idle connection, its tail still unsent.
  const flushed = Promise.all([...streams].map((end) => end()));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([flushed, new Promise<void>((done) => (timer = setTimeout(done, CLOSE_FLUSH_MS)))]);
  clearTimeout(timer);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
