/**
 * Starts the real `inferbench serve` binary (node dist/cli/main.js, so build first) on port 0 and reads
 * its base URL from the first stdout line. Use it when a test needs the emulator in its own process (a
 * real CLI, signals, a separate event loop); use `createEmulator` from src/emulator/emulator.ts for an
 * in-process one. Always `await emulator.stop()` in teardown.
 *
 *     const emulator = await startEmulatorProcess(['--api-key', 'k']);
 *     // ... fetch(`${emulator.url}/v1/models`) ...
 *     await emulator.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const MAIN = resolve(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface EmulatorProcess {
  /** Base URL without /v1, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far (startup lines, errors). */
  stderr(): string;
  /** Resolves with stderr once it matches `pattern` (startup lines follow the URL); rejects after `timeoutMs`. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null if killed by a signal). */
  stop(graceMs?: number): Promise<number | null>;
}

/** Spawns `serve --port 0 ...extraArgs`; rejects (with stderr) if no URL appears within `timeoutMs`. */
export function startEmulatorProcess(extraArgs: readonly string[] = [], timeoutMs = 30_000): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (graceMs = 5_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  const waitForStderr = async (pattern: RegExp, waitMs = 10_000): Promise<string> => {
    const deadline = Date.now() + waitMs;
    while (!pattern.test(stderr)) {
      if (Date.now() > deadline) throw new Error(`stderr did not match ${pattern} within ${waitMs} ms:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return stderr;
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`emulator printed no URL within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      resolvePromise({ url: stdout.slice(0, newline), child, stderr: () => stderr, waitForStderr, stop });
    });
    // Settling an already-resolved promise is a no-op, so this only matters before the URL arrived.
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with ${code} before printing a URL; stderr:\n${stderr}`));
    });
  });
}
