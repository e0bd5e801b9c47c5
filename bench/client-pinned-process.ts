/**
 * The client benchmark's child processes, each pinned to one core with `taskset -c` where the machine
 * has two or more cores and taskset is installed (the target server on core 0, the harness under test
 * on core 1; the orchestrating parent only waits on messages). Without taskset or with one core the
 * children run unpinned and the plan says so, for the notes. Talks to the child with client-rpc.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RpcAnswer } from './client-rpc.js';
import { canPin, onCore } from './cpu-pin.js';

export interface PinningPlan {
  /** taskset is used: server on `serverCore`, client on `clientCore`. */
  readonly pinned: boolean;
  readonly serverCore: number;
  readonly clientCore: number;
  readonly note: string;
}

/** Decides whether children are pinned (two cores and taskset: cpu-pin.ts), once per benchmark. */
export function pinningPlan(): PinningPlan {
  const cores = availableParallelism();
  if (canPin()) {
    return {
      pinned: true,
      serverCore: 0,
      clientCore: 1,
      note: `server pinned to core 0, client to core 1 (taskset; ${cores} cores)`,
    };
  }
  const why = cores < 2 ? `only ${cores} core` : 'taskset not found';
  return {
    pinned: false,
    serverCore: 0,
    clientCore: 0,
    note: `not pinned (${why}): server and client share the machine's cores`,
  };
}

/** The command that runs `argv` on `core`, or unpinned. */
export function pinnedCommand(plan: PinningPlan, core: number, argv: readonly string[]): [string, string[]] {
  return plan.pinned ? onCore(core, argv[0] as string, argv.slice(1)) : [argv[0] as string, argv.slice(1)];
}

/** A node child running one of the benchmark's child scripts, answering commands over IPC. */
export class PinnedProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 0;
  #exited: Error | null = null;
  readonly #exitedPromise: Promise<void>;

  /** `script`: a file name next to this one (e.g. 'client-target-child.js'). */
  constructor(plan: PinningPlan, core: number, script: string, nodeFlags: readonly string[] = []) {
    const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
    const [command, args] = pinnedCommand(plan, core, [process.execPath, ...nodeFlags, path]);
    this.#child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (message: RpcAnswer) => {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(`${script}: ${message.error}`));
      else pending?.resolve(message.result);
    });
    this.#exitedPromise = new Promise((resolve) => {
      const fail = (error: Error): void => {
        this.#exited ??= error;
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
        resolve();
      };
      this.#child.on('error', fail);
      this.#child.on('exit', (code, signal) => fail(new Error(`${script} exited (code ${code}, signal ${signal})`)));
    });
  }

  /** False once the child has exited (or failed to start). */
  get alive(): boolean {
    return this.#exited === null;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends a command and resolves its result. */
  call<T>(cmd: string, arg: unknown = null): Promise<T> {
    if (this.#exited !== null) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#child.send({ id, cmd, arg });
    });
  }

  /** Disconnects (the child exits on its own) and waits; kills it if it lingers. */
  async close(): Promise<void> {
    if (this.#exited !== null) return;
    if (this.#child.connected) this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.#exitedPromise;
    clearTimeout(timer);
  }
}
