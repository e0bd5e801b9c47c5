/**
 * The local server of a run's live views (Prometheus' /metrics, the dashboard) over real sockets: bodies
 * made per request, event streams that carry every line, GET only, and a close that ends open streams.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type EventSink,
  type LivePageServer,
  type LiveRoute,
  startLivePageServer,
} from '../../../src/emulator/http/live-page-server.js';

const servers: LivePageServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(routes: [string, LiveRoute][]): Promise<LivePageServer> {
  const server = await startLivePageServer({ host: '127.0.0.1', port: 0, routes: new Map(routes) });
  servers.push(server);
  return server;
}

function fetchText(url: string, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
    req.end();
  });
}

describe('live page server', () => {
  it('makes a text body at each request, answers HEAD without one, 404 and 405 otherwise', async () => {
    let scrapes = 0;
    const server = await start([
      ['/metrics', { kind: 'text', contentType: 'text/plain; version=0.0.4', body: () => `scrapes ${++scrapes}\n` }],
    ]);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(await fetchText(`${server.url}/metrics`)).toEqual({
      status: 200,
      type: 'text/plain; version=0.0.4',
      body: 'scrapes 1\n',
    });
    expect((await fetchText(`${server.url}/metrics?x=1`)).body).toBe('scrapes 2\n');
    expect(await fetchText(`${server.url}/metrics`, 'HEAD')).toMatchObject({ status: 200, body: '' });
    const missing = await fetchText(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('/metrics');
    expect((await fetchText(`${server.url}/metrics`, 'POST')).status).toBe(405);
  });

  it('turns a throwing producer into a 500 and keeps serving', async () => {
    let fail = true;
    const server = await start([
      [
        '/',
        {
          kind: 'text',
          contentType: 'text/plain',
          body: () => {
            if (fail) throw new Error('broken');
            return 'fine';
          },
        },
      ],
    ]);
    expect(await fetchText(`${server.url}/`)).toMatchObject({ status: 500, body: expect.stringContaining('broken') });
    fail = false;
    expect((await fetchText(`${server.url}/`)).body).toBe('fine');
  });

  it('streams events with every line of their data, and close ends the stream and unsubscribes', async () => {
    const sinks = new Set<EventSink>();
    let unsubscribed = 0;
    const server = await start([
      [
        '/events',
        {
          kind: 'events',
          subscribe: (sink) => {
            sinks.add(sink);
            sink.send('hello', 'line one\nline two');
            return () => {
              sinks.delete(sink);
              unsubscribed += 1;
            };
          },
        },
      ],
    ]);
    const received = fetchText(`${server.url}/events`);
    await waitFor(() => sinks.size === 1);
    for (const sink of sinks) sink.send('tick', '{"n":1}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    servers.length = 0;
    const { status, type, body } = await received;
    expect(status).toBe(200);
    expect(type).toBe('text/event-stream; charset=utf-8');
    expect(body).toBe('retry: 1000\n\nevent: hello\ndata: line one\ndata: line two\n\nevent: tick\ndata: {"n":1}\n\n');
    expect(unsubscribed).toBe(1);
    expect(sinks.size).toBe(0);
  });

  it("lets the last event out before it cuts the sockets on close (a dashboard's `end`)", async () => {
    let last: EventSink | undefined;
    const server = await start([
      [
        '/events',
        {
          kind: 'events',
          subscribe: (sink) => {
            last = sink;
            return () => undefined;
          },
        },
      ],
    ]);
    const received = fetchText(`${server.url}/events`);
    await waitFor(() => last !== undefined);
    // More than a loopback socket's buffers take at once: cut at once, its tail would be lost.
    const big = 'x'.repeat(8 << 20);
    last?.send('end', big);
    await server.close();
    servers.length = 0;
    const { body } = await received;
    expect(body.endsWith(`event: end\ndata: ${big}\n\n`)).toBe(true);
  });

  it('skips events for a reader that is far behind, but not the last one; close ends a hostile client too', async () => {
    let sink: EventSink | undefined;
    const subscribe = (opened: EventSink): (() => void) => {
      sink = opened;
      return () => undefined;
    };
    const server = await start([['/events', { kind: 'events', subscribe }]]);
    // A client that sends half a request and nothing more.
    const half = connect(server.port, '127.0.0.1');
    half.on('error', () => undefined);
    half.write('GET /events HTTP/1.1\r\nHost: x\r\n');
    // A reader that stops reading: the ticks pile up in the server until it skips them.
    const reader = connect(server.port, '127.0.0.1');
    reader.on('error', () => undefined);
    reader.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    reader.pause();
    await waitFor(() => sink !== undefined);
    const tick = 'x'.repeat(256 << 10);
    for (let i = 0; i < 64; i++) sink?.send('tick', `${i} ${tick}`);
    sink?.send('end', 'final', true);
    let body = '';
    reader.setEncoding('latin1');
    reader.on('data', (chunk: string) => {
      body += chunk;
    });
    const ended = new Promise((resolve) => reader.on('close', resolve));
    reader.resume();
    const closing = performance.now();
    await server.close();
    servers.length = 0;
    await ended;
    // The flush waits at most a second, then every socket is cut (the half request's too).
    expect(performance.now() - closing).toBeLessThan(4_000);
    expect(half.destroyed || half.readableEnded).toBe(true);
    const ticks = body.match(/event: tick\n/g)?.length ?? 0;
    expect(ticks).toBeGreaterThan(0);
    expect(ticks).toBeLessThan(64);
    expect(body).toContain('event: end\ndata: final\n\n');
  });

  it('rejects a port that is taken', async () => {
    const first = await start([]);
    await expect(startLivePageServer({ host: '127.0.0.1', port: first.port, routes: new Map() })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const until = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
