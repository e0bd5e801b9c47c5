/**
 * What every purpose-built test server does the same way: listen on 127.0.0.1 at a free port, and on
 * close destroy every socket it still has (kept-alive, tunnelled or piped) so that close() cannot hang.
 */
import type { AddressInfo, Server, Socket } from 'node:net';

export interface LoopbackListener {
  readonly port: number;
  /** Destroyed on close: sockets the server did not accept itself (an upstream, a backend). */
  track(socket: Socket): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 port 0; every connection the server accepts is tracked. */
export async function listenOnLoopback(server: Server): Promise<LoopbackListener> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  server.on('connection', track);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    track,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
