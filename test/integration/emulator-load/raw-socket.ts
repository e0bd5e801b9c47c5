/**
 * A raw TCP client for input that HTTP clients refuse to send (conflicting Content-Length, bytes
 * trickled one at a time): writes what it is given, records everything the server sends and when the
 * server closed the connection.
 */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  readonly socket: Socket;
  /** Resolves when the server closes the connection (or after `limitMs`, then `closedByServer` is false). */
  readonly closed: Promise<RawOutcome>;
}

export interface RawOutcome {
  readonly text: string;
  readonly closedByServer: boolean;
  /** From connect to close. */
  readonly openMs: number;
  /** performance.now() at the close. */
  readonly closedAt: number;
}

/** Opens a connection to the emulator's host and port; resolves once connected. */
export function openRaw(baseUrl: string, limitMs = 20_000): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    let text = '';
    let closedByServer = false;
    socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {});
    socket.on('end', () => (closedByServer = true));
    const timer = setTimeout(() => socket.destroy(), limitMs);
    const closed = new Promise<RawOutcome>((done) =>
      socket.on('close', () => {
        clearTimeout(timer);
        done({ text, closedByServer, openMs: performance.now() - started, closedAt: performance.now() });
      }),
    );
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Sends `bytes` on a fresh connection and waits until the server closes it. */
export async function exchangeRaw(baseUrl: string, bytes: string | Buffer, limitMs = 10_000): Promise<RawOutcome> {
  const connection = await openRaw(baseUrl, limitMs);
  connection.socket.write(bytes);
  return connection.closed;
}

/** The status code and body of the first HTTP response in `text` (a raw response read off a socket). */
export function firstResponse(text: string): { status: number; head: string; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
    head,
    body: end < 0 ? '' : text.slice(end + 4, end + 4 + length),
  };
}
