/**
 * The known-timing server in a child process (known-timing-child.ts), driven by IPC messages, as the
 * accuracy benchmarks use it: its own process, as a real server would be, so that the client's work does
 * not delay the server's writes and the server's timers do not delay the client's reads. Optionally
 * pinned to one core (accuracy-cpu-pin.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinProcess } from './cpu-pin.js';
import type { KnownTimingOptions, RequestTrace } from '../test/helpers/known-timing/known-timing-server.js';

/** What the server child reports on 'stats' (KnownTimingStats without its methods). */
export interface ServerStats {
  readonly traces: RequestTrace[];
  readonly ttftMs: number[];
  readonly itlMs: number[];
  readonly e2eMs: number[];
  readonly lateMs: number[];
  readonly completed: number;
  readonly maxActive: number;
}

export class ServerProcess {
  readonly #child: ChildProcess;
  #pending: { resolve: (value: unknown) => void; reject: (error: Error) => void } | null = null;
  #exited: Error | null = null;
  /** Whether the server was pinned to the core asked for. */
  readonly pinned: boolean;

  /** Starts the server with `options`; with `core`, pinned to that core where the machine allows. */
  constructor(options: KnownTimingOptions, core?: number) {
    this.#child = fork(fileURLToPath(new URL('./known-timing-child.js', import.meta.url)), [JSON.stringify(options)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.pinned = core === undefined ? false : pinProcess(this.#child.pid, core);
    this.#child.on('message', (message: unknown) => {
      const pending = this.#pending;
      this.#pending = null;
      pending?.resolve(message);
    });
    const fail = (error: Error): void => {
      this.#exited = error;
      const pending = this.#pending;
      this.#pending = null;
      pending?.reject(error);
    };
    this.#child.on('error', fail);
    this.#child.on('exit', (code) => fail(new Error(`the known-timing server exited (code ${code})`)));
  }

  #next(send?: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.#exited !== null) {
        reject(this.#exited);
        return;
      }
      this.#pending = { resolve, reject };
      if (send) this.#child.send(send);
    });
  }

  async url(): Promise<string> {
    return ((await this.#next()) as { url: string }).url;
  }

  stats(): Promise<ServerStats> {
    return this.#next('stats') as Promise<ServerStats>;
  }

  async reset(): Promise<void> {
    await this.#next('reset');
  }

  async close(): Promise<void> {
    if (this.#exited !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send('close');
    await exited;
  }
}
