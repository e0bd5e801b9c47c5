/**
 * The engine server of `npm run bench engine` (test/helpers/engine/engine-server.ts) in a process of its
 * own, so that the harness's process measures only itself (its CPU and event-loop checks would otherwise
 * count llama.cpp's thread and the server's work). Commands: start (EngineServerOptions) -> its URL,
 * requests -> the engine's request log so far. Closes the engine and exits when the parent goes.
 *
 * It runs at nice 10 (set before llama.cpp starts its threads, which inherit it): near its capacity the
 * engine keeps a core busy, and on a loaded 2-core machine the harness, starved, would find itself the
 * bottleneck (its event-loop delay over 10 ms) and spoil the capacity steps. Niced, the engine gets what
 * the harness leaves; its capacity is measured as it is then, by the search and the sweep alike.
 */
import { setPriority } from 'node:os';
import {
  type EngineServer,
  type EngineServerOptions,
  startEngineServer,
} from '../test/helpers/engine/engine-server.js';
import type { EngineStamps } from './engine-stamps.js';
import { serveRpc } from './client-rpc.js';

setPriority(10);

let server: EngineServer | undefined;

serveRpc(
  {
    start: async (options: EngineServerOptions) => {
      server = await startEngineServer(options);
      return server.url;
    },
    requests: (): EngineStamps[] =>
      (server?.requests ?? []).map(({ requestId, arrivedMs, startedMs, tokenTimesMs, endedMs }) => ({
        requestId,
        arrivedMs,
        startedMs,
        tokenTimesMs,
        endedMs,
      })),
  },
  () => {
    const closing = server?.close() ?? Promise.resolve();
    void closing.finally(() => process.exit(0));
  },
);
