/**
 * The target server of the client benchmark (node:net, prebuilt bytes, Nagle off), one process pinned to
 * its own core. Two modes, switched between runs:
 *
 * - `fixed`: answers at once. A non-streamed chat gets a whole prebuilt answer; a streamed one a short
 *   stream (role, 4 tokens, final) in one write. For plain-HTTP throughput and the open loop.
 * - `stream`: long streams. Every request opens a stream that writes `eventsPerWrite` token events per
 *   write, one write every `intervalMs` (0: as fast as the loop turns), until `finish()` ends every
 *   stream with its final chunk. For events absorbed, open streams and cost per event.
 *
 * Writes are paced by one FIFO of streams ordered by due time (every stream has the same interval, and a
 * stream goes to the back when it has written, so the queue stays sorted): one timer or setImmediate for
 * all streams, whatever their number. A stream whose socket buffer is full waits for 'drain' (the
 * client is behind) instead of queueing bytes in the server. The server counts its open streams: the
 * benchmark checks the client's in-flight count against it.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  MODELS_BODY,
  ROLE_CHUNK,
  SHORT_STREAM,
  STREAM_HEAD,
  streamEnd,
  tokenBatch,
  WHOLE_ANSWER,
} from './client-target-bytes.js';
import { type RequestHandler, sendWhole, serveConnection } from '../test/helpers/known-timing/http1-framing.js';

export type TargetMode =
  | { readonly kind: 'fixed' }
  | { readonly kind: 'stream'; readonly eventsPerWrite: number; readonly intervalMs: number };

export interface TargetStats {
  readonly requests: number;
  readonly openStreams: number;
  readonly maxOpenStreams: number;
  readonly writes: number;
  readonly events: number;
}

interface OpenStream {
  readonly socket: Socket;
  readonly done: () => void;
  due: number;
  tokens: number;
  blocked: boolean;
  ended: boolean;
}

const STREAM_FLAG = Buffer.from('"stream":true');

export class TargetServer {
  readonly #server: Server;
  #mode: TargetMode = { kind: 'fixed' };
  #batch: Buffer = tokenBatch(1);
  /** Streams waiting to write, in due order; `#head` is the next. */
  #queue: OpenStream[] = [];
  #head = 0;
  readonly #open = new Set<OpenStream>();
  #scheduled = false;
  #requests = 0;
  #maxOpen = 0;
  #writes = 0;
  #events = 0;

  constructor() {
    const handle: RequestHandler = (socket, head, body, _arrivedMs, done) =>
      this.#handle(socket, head.method, head.path, body, done);
    this.#server = createServer({ noDelay: true }, (socket) => {
      socket.setNoDelay(true);
      serveConnection(socket, handle);
    });
  }

  /** Listens on 127.0.0.1 (a backlog for thousands of connections opened at once); resolves the base URL. */
  listen(): Promise<string> {
    return new Promise((resolve) => {
      this.#server.listen({ host: '127.0.0.1', port: 0, backlog: 8192 }, () => {
        resolve(`http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`);
      });
    });
  }

  configure(mode: TargetMode): void {
    this.#mode = mode;
    if (mode.kind === 'stream') this.#batch = tokenBatch(mode.eventsPerWrite);
  }

  stats(): TargetStats {
    return {
      requests: this.#requests,
      openStreams: this.#open.size,
      maxOpenStreams: this.#maxOpen,
      writes: this.#writes,
      events: this.#events,
    };
  }

  resetStats(): void {
    this.#requests = 0;
    this.#maxOpen = this.#open.size;
    this.#writes = 0;
    this.#events = 0;
  }

  /** Ends every open stream with its final chunk (the client's requests then complete). */
  finish(): void {
    for (const stream of [...this.#open]) this.#end(stream);
    this.#queue = [];
    this.#head = 0;
  }

  close(): Promise<void> {
    this.finish();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #handle(socket: Socket, method: string, path: string, body: Buffer, done: () => void): 'answered' | 'pending' {
    if (method === 'GET') {
      sendWhole(socket, path.endsWith('/models') ? '200 OK' : '404 Not Found', MODELS_BODY, true);
      return 'answered';
    }
    this.#requests++;
    const streamed = body.includes(STREAM_FLAG);
    if (!streamed) {
      socket.write(WHOLE_ANSWER);
      return 'answered';
    }
    if (this.#mode.kind === 'fixed') {
      socket.write(SHORT_STREAM);
      return 'answered';
    }
    this.#open.add(this.#startStream(socket, done));
    if (this.#open.size > this.#maxOpen) this.#maxOpen = this.#open.size;
    return 'pending';
  }

  #startStream(socket: Socket, done: () => void): OpenStream {
    const stream: OpenStream = { socket, done, due: 0, tokens: 0, blocked: false, ended: false };
    socket.cork();
    socket.write(STREAM_HEAD);
    socket.write(ROLE_CHUNK);
    socket.uncork();
    socket.once('close', () => {
      stream.ended = true;
      this.#open.delete(stream);
    });
    // The first tokens at once, then one write per interval: the queue stays in due order.
    this.#writeAndRequeue(stream, performance.now());
    return stream;
  }

  /** One batch of token events; back in the queue unless the socket is full (then on 'drain'). */
  #writeAndRequeue(stream: OpenStream, now: number): void {
    if (stream.ended) return;
    const mode = this.#mode;
    if (mode.kind !== 'stream') return;
    this.#writes++;
    this.#events += mode.eventsPerWrite;
    stream.tokens += mode.eventsPerWrite;
    if (!stream.socket.write(this.#batch)) {
      stream.blocked = true;
      stream.socket.once('drain', () => {
        stream.blocked = false;
        this.#writeAndRequeue(stream, performance.now());
      });
      return;
    }
    const next = stream.due + mode.intervalMs;
    // Fallen behind (a busy loop, a slow client): no burst to catch up, the pace resumes from now.
    stream.due = next < now ? now + mode.intervalMs : next;
    this.#queue.push(stream);
    this.#schedule(now);
  }

  #end(stream: OpenStream): void {
    if (stream.ended) return;
    stream.ended = true;
    this.#open.delete(stream);
    stream.socket.write(streamEnd(stream.tokens));
    stream.done();
  }

  #schedule(now: number): void {
    if (this.#scheduled || this.#head >= this.#queue.length) return;
    this.#scheduled = true;
    const waitMs = (this.#queue[this.#head] as OpenStream).due - now;
    if (waitMs < 1) setImmediate(this.#tick);
    else setTimeout(this.#tick, Math.floor(waitMs));
  }

  readonly #tick = (): void => {
    this.#scheduled = false;
    const now = performance.now();
    // Only the streams queued before this turn: one write per stream per turn at most.
    const end = this.#queue.length;
    while (this.#head < end) {
      const stream = this.#queue[this.#head] as OpenStream;
      if (stream.due > now) break;
      this.#head++;
      if (!stream.ended && !stream.blocked) this.#writeAndRequeue(stream, now);
    }
    if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#schedule(now);
  };
}
