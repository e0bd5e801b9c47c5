/**
 * The known-timing server's HTTP/1.1, on a node:net socket and no more of it than the client under test
 * needs: reading request heads and content-length bodies off a connection, one request at a time
 * (keep-alive, no pipelining), and writing response heads, whole responses and chunked framing. What a
 * request is answered with, and when, is the caller's (known-timing-server.ts); why not node:http is said
 * there too.
 *
 * Anything else (transfer-encoding, a head that is not HTTP/1.x, a head over 64 KiB, a body over 16 MiB)
 * gets a 400 and the connection is closed.
 */
import type { Socket } from 'node:net';
import { arrivalUs } from '../util/arrival-clock.js';
import { systemClock } from '../util/clock.js';

/** A request head larger than this is refused (the client under test sends a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

const BAD_REQUEST_BODY = Buffer.from(
  '{"message":"the known-timing server could not read this request","type":"invalid_request_error","param":null,"code":"bad_request"}',
);

/** The chunk that ends a chunked body. */
export const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

/** `data` framed as one chunk of a chunked body (built once, ahead of the writes). */
export function httpChunk(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1'), data, Buffer.from('\r\n', 'latin1')]);
}

/** A response head: status line, `headers`, then `connection` as `keepAlive` says. */
export function responseHead(status: string, headers: Record<string, string>, keepAlive: boolean): Buffer {
  let head = `HTTP/1.1 ${status}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`;
  return Buffer.from(head, 'latin1');
}

/** Writes a whole JSON response with a body; closes the connection after it unless kept alive. */
export function sendWhole(socket: Socket, status: string, body: Buffer, keepAlive: boolean): void {
  socket.cork();
  socket.write(
    responseHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) }, keepAlive),
  );
  socket.write(body);
  socket.uncork();
  if (!keepAlive) socket.end();
}

/** The parts of a request head the server acts on. */
export interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly contentLength: number;
  readonly keepAlive: boolean;
}

/** Parses a request head (without the blank line); null when it is not HTTP/1.x it can serve. */
function parseHead(text: string): RequestHead | null {
  const lines = text.split('\r\n');
  const [method, path, version] = (lines[0] ?? '').split(' ');
  if (method === undefined || path === undefined || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) return null;
  let contentLength = 0;
  let keepAlive = version === 'HTTP/1.1';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value)) return null;
      contentLength = Number(value);
    } else if (name === 'transfer-encoding') {
      return null;
    } else if (name === 'connection') {
      const tokens = value.toLowerCase();
      if (tokens.includes('close')) keepAlive = false;
      else if (tokens.includes('keep-alive')) keepAlive = true;
    }
  }
  if (contentLength > MAX_BODY_BYTES) return null;
  return { method, path, contentLength, keepAlive };
}

/**
 * Answers one request read off a connection. `arrivedMs` (performance.now() ms) is when the server's event
 * loop began handling the batch of reads the request's first bytes came in (util/arrival-clock.ts).
 * Returns 'answered' when the answer is already written, 'pending' when it is still being written: the
 * connection then reads no further request until `done` is called (once).
 */
export type RequestHandler = (
  socket: Socket,
  head: RequestHead,
  body: Buffer,
  arrivedMs: number,
  done: () => void,
) => 'answered' | 'pending';

/** Reads requests off one connection and hands them to `handle`, one at a time. */
export function serveConnection(socket: Socket, handle: RequestHandler): void {
  let buffered: Buffer = Buffer.alloc(0);
  /** Arrival of the request being read, stamped when its first bytes came. */
  let arrivedMs = Number.NaN;
  /** An answer is being written: the next request waits (no pipelining). */
  let busy = false;
  /** Whether the connection stays open after the answer being written. */
  let keepAlive = false;

  // One `done` per connection, not per request: only one answer is ever in progress on it.
  const done = (): void => {
    busy = false;
    if (keepAlive) setImmediate(serveBuffered);
  };
  const serveBuffered = (): void => {
    while (!busy && buffered.length > 0 && !socket.destroyed) {
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (buffered.length > MAX_HEAD_BYTES) sendWhole(socket, '400 Bad Request', BAD_REQUEST_BODY, false);
        return;
      }
      const head = parseHead(buffered.subarray(0, headEnd).toString('latin1'));
      if (head === null) {
        buffered = Buffer.alloc(0);
        sendWhole(socket, '400 Bad Request', BAD_REQUEST_BODY, false);
        return;
      }
      const bodyStart = headEnd + 4;
      if (buffered.length < bodyStart + head.contentLength) return;
      const body = buffered.subarray(bodyStart, bodyStart + head.contentLength);
      buffered = buffered.subarray(bodyStart + head.contentLength);
      const requestArrivedMs = arrivedMs;
      arrivedMs = buffered.length > 0 ? arrivalUs(systemClock) / 1000 : Number.NaN;
      keepAlive = head.keepAlive;
      // Busy before the handler runs: an answer written at once calls `done` from inside it.
      busy = true;
      if (handle(socket, head, body, requestArrivedMs, done) === 'answered') busy = false;
    }
  };

  socket.on('data', (data: Buffer) => {
    // Arrived when this poll batch began, not when the loop got round to this socket: requests that
    // come together would otherwise have the server's own intake left out of what it really did.
    if (buffered.length === 0) arrivedMs = arrivalUs(systemClock) / 1000;
    buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
    serveBuffered();
  });
  socket.on('error', () => socket.destroy());
}
