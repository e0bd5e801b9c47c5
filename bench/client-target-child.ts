/**
 * The client benchmark's target server (client-target-server.ts) as a child process, pinned by its parent
 * to the server's core. Commands: url, configure (a TargetMode), stats, resetStats, finish (end every
 * open stream).
 */
import { serveRpc } from './client-rpc.js';
import { type TargetMode, TargetServer } from './client-target-server.js';

const server = new TargetServer();
const url = await server.listen();

serveRpc(
  {
    url: () => url,
    configure: (mode: TargetMode) => server.configure(mode),
    stats: () => server.stats(),
    resetStats: () => server.resetStats(),
    finish: () => server.finish(),
  },
  // The parent went away: nothing left to serve (open keep-alive connections would hold close()).
  () => process.exit(0),
);
