/**
 * The engine server (engine-server.ts) in a process of its own, started by engine-process.ts, so that
 * the harness's process measures only itself: in the harness's process, llama.cpp's thread and the
 * server's work would count as the harness's CPU and event-loop time, and a capacity step would be
 * spoiled as the harness's own bottleneck. Node IPC messages: `{ id, cmd, arg }` in, `{ id, result }` or
 * `{ id, error }` out; commands `start` (EngineChildOptions) -> its URL and model id, `requests` -> the
 * engine's stamps so far. Closes the engine and exits when the parent disconnects (or goes).
 *
 * Runs from its build (dist-bench/test/helpers/engine/engine-child.js: `npm run build:bench`, which
 * `npm test` and `npm run bench` run first): a child process has no TypeScript loader.
 */
import { setPriority } from 'node:os';
import { type EngineServer, type EngineServerOptions, startEngineServer } from './engine-server.js';
import type { EngineRequestLog } from './llama-engine.js';

export interface EngineChildOptions extends EngineServerOptions {
  /**
   * The process's nice value, set before llama.cpp starts its threads (which inherit it); default 0.
   * `npm run bench engine` takes 10: near capacity the engine keeps a core busy, and niced it gets what
   * the harness leaves.
   */
  readonly nice?: number;
}

/** What the parent gets of each request: the engine's own times. */
export type EngineStamps = Pick<EngineRequestLog, 'requestId' | 'arrivedMs' | 'startedMs' | 'tokenTimesMs' | 'endedMs'>;

interface Request {
  readonly id: number;
  readonly cmd: string;
  readonly arg: unknown;
}

let server: EngineServer | undefined;

const handlers: Record<string, (arg: never) => unknown> = {
  start: async (options: EngineChildOptions) => {
    if (server !== undefined) throw new Error('the engine is already started');
    const { nice, ...serverOptions } = options;
    if (nice !== undefined && nice !== 0) setPriority(nice);
    server = await startEngineServer(serverOptions);
    return { url: server.url, modelId: server.modelId };
  },
  requests: (): EngineStamps[] =>
    (server?.requests ?? []).map(({ requestId, arrivedMs, startedMs, tokenTimesMs, endedMs }) => ({
      requestId,
      arrivedMs,
      startedMs,
      tokenTimesMs,
      endedMs,
    })),
};

process.on('message', (message: Request) => {
  const handler = handlers[message.cmd] as ((arg: unknown) => unknown) | undefined;
  const answer = async () => {
    if (handler === undefined) return { id: message.id, error: `unknown command ${message.cmd}` };
    try {
      return { id: message.id, result: await handler(message.arg) };
    } catch (error) {
      return { id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
  };
  void answer().then((reply) => process.send?.(reply));
});
process.on('disconnect', () => {
  const closing = server?.close() ?? Promise.resolve();
  void closing.finally(() => process.exit(0));
});
