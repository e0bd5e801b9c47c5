/**
 * Pins a benchmark's processes to cores with Debian's `taskset` (util-linux), so that the server under
 * load and the client under test do not share a core and the orchestrator's own work delays neither.
 * Without taskset (or on a machine with fewer cores than asked for) nothing is pinned and the caller is
 * told, so the benchmark degrades to a shared machine rather than failing.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

let available: boolean | null = null;

/** Whether `taskset` runs here (checked once). */
export function canPin(): boolean {
  if (available === null) {
    const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    available = probe.status === 0 && cpus().length >= 2;
  }
  return available;
}

/**
 * The command and arguments that run `command args` on `core`: prefixed with taskset when pinning is
 * possible, unchanged otherwise.
 */
export function onCore(core: number, command: string, args: readonly string[]): [string, string[]] {
  return canPin() ? ['taskset', ['-c', String(core), command, ...args]] : [command, [...args]];
}

/** Moves every thread of a running process to `core`; false when it could not (then it stays unpinned). */
export function pinProcess(pid: number | undefined, core: number): boolean {
  if (pid === undefined || !canPin()) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' }).status === 0;
}
