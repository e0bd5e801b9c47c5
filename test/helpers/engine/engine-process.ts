/**
 * The engine server in a child process (engine-child.ts, run from its build in dist-bench/: build it
 * first with `npm run build:bench`, as `npm test` and `npm run bench` do). Use it when the harness's
 * process must measure only itself (a capacity search judges the harness's own CPU and event loop); use
 * startEngineServer (engine-server.ts) for an engine in the test's process. Always `await close()`.
 *
 *     const engine = await startEngineProcess({ modelPath, sequences: 2 });
 *     // ... inferbench against engine.url; engine.requests() for the engine's own stamps ...
 *     await engine.close();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/cli/package-root.js';
import type { EngineChildOptions, EngineStamps } from './engine-child.js';

export type { EngineChildOptions, EngineStamps } from './engine-child.js';

/** The child's build: the same path from test/helpers/engine/ (vitest) and from dist-bench/ (the bench). */
export const ENGINE_CHILD = join(packageRoot(), 'dist-bench', 'test', 'helpers', 'engine', 'engine-child.js');

export interface EngineProcess {
  readonly url: string;
  readonly modelId: string;
  readonly pid: number | undefined;
  /** The engine's stamps of every request so far, in arrival order. */
  requests(): Promise<EngineStamps[]>;
  /** Disconnects (the child closes the engine and exits) and waits; kills it after 5 s. */
  close(): Promise<void>;
}

interface Answer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

/** Spawns the child, loads the model in it and starts its server; rejects if the child fails first. */
export async function startEngineProcess(options: EngineChildOptions): Promise<EngineProcess> {
  if (!existsSync(ENGINE_CHILD)) throw new Error(`${ENGINE_CHILD} is missing: run \`npm run build:bench\` first`);
  const child: ChildProcess = spawn(process.execPath, [ENGINE_CHILD], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let exited: Error | null = null;
  const gone = new Promise<void>((resolve) => {
    const fail = (error: Error) => {
      exited ??= error;
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
      resolve();
    };
    child.on('error', fail);
    child.on('exit', (code, signal) => fail(new Error(`the engine child exited (code ${code}, signal ${signal})`)));
  });
  child.on('message', (message: Answer) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(`engine child: ${message.error}`));
    else waiter?.resolve(message.result);
  });
  const call = <T>(cmd: string, arg: unknown = null): Promise<T> => {
    if (exited !== null) return Promise.reject(exited);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, cmd, arg });
    });
  };
  const close = async () => {
    if (exited !== null) return;
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  try {
    const { url, modelId } = await call<{ url: string; modelId: string }>('start', options);
    return { url, modelId, pid: child.pid, requests: () => call<EngineStamps[]>('requests'), close };
  } catch (error) {
    await close();
    throw error;
  }
}
