/**
 * A TLS terminator on 127.0.0.1 port 0 in front of a plain HTTP server (the known-timing server): it
 * decrypts and pipes each connection to the backend, so an https target behaves exactly as the backend
 * does. With `requestCert` it demands a client certificate signed by `ca` (mutual TLS). It counts the
 * handshakes that succeeded and the ones that failed.
 */
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { listenOnLoopback } from './loopback-server.js';

export interface TlsFrontOptions {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Port of the plain backend on 127.0.0.1. */
  readonly backendPort: number;
  /** Demand a client certificate signed by `ca`. */
  readonly requestCert?: boolean;
  readonly ca?: Buffer;
}

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly stats: { secureConnections: number; tlsErrors: number };
  close(): Promise<void>;
}

export async function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  const stats = { secureConnections: 0, tlsErrors: 0 };
  // Backends are tracked once the listener exists (they start after it); TLS sockets sit on accepted ones.
  let track: (socket: Socket) => void = () => {};
  const server = createServer(
    {
      cert: options.cert,
      key: options.key,
      ...(options.requestCert ? { requestCert: true, rejectUnauthorized: true, ca: options.ca } : {}),
    },
    (tlsSocket: TLSSocket) => {
      stats.secureConnections++;
      const backend = connect({ host: '127.0.0.1', port: options.backendPort });
      track(backend);
      const end = (): void => {
        tlsSocket.destroy();
        backend.destroy();
      };
      tlsSocket.on('error', end).on('close', () => backend.destroy());
      backend.on('error', end).on('close', () => tlsSocket.destroy());
      tlsSocket.pipe(backend).pipe(tlsSocket);
    },
  );
  server.on('tlsClientError', () => {
    stats.tlsErrors++;
  });
  const listener = await listenOnLoopback(server);
  track = listener.track;
  return {
    url: `https://127.0.0.1:${listener.port}`,
    port: listener.port,
    stats,
    close: () => listener.close(),
  };
}
