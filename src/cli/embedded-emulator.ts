/**
 * The embedded default target: `inferbench serve --port 0` started as a CHILD PROCESS (never in the
 * client's event loop, whose timing it would distort), its base URL read from the first line of its
 * stdout within a startup timeout, and killed when the run ends or fails in any way.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InferbenchError } from '../errors.js';
import { API_PATHS } from '../protocol/apis.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import { packageRoot } from './package-root.js';

export interface EmbeddedEmulator {
  /** Base URL without `/v1`, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  /** The throwaway key the emulator accepts (never a user's key). */
  readonly apiKey: string;
  /** Its throwaway management key, for `models: { endpoints_of: local }` (the emulator's org is `local`). */
  readonly managementKey: string;
  /** Stops the emulator and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

export interface EmbeddedEmulatorOptions {
  /** Emulator config file (`serve --config`), or null for the built-in catalog. */
  readonly configPath: string | null;
  readonly startupTimeoutMs?: number;
  /** Environment of the child; the caller passes a copy without secrets it does not need. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The emulator is faithful to the service, which has only chat completions: a scenario of another `api`
 * (profile/sections/api.ts) cannot run against it. Refused before the emulator starts and before any
 * request (every one would be a 404), with the way out.
 */
export function refuseApisTheEmulatorLacks(profile: ResolvedProfile): void {
  const other = profile.scenarios.find((scenario) => scenario.api !== undefined && scenario.api !== 'chat');
  if (other?.api === undefined) return;
  throw new InferbenchError(
    'TARGET_ERROR',
    `scenario ${other.name} has api: ${other.api}, but the embedded emulator serves only chat completions (POST ${API_PATHS.chat}), like the service it emulates: POST ${API_PATHS[other.api]} answers 404 there`,
    {
      hint: `run it against a server of that API (vLLM, SGLang, llama.cpp...): --base-url URL or target.base_url; or use api: chat`,
    },
  );
}

/** dist/cli/main.js, also when this file runs from src/ under vitest (tests build dist/ first). */
export function cliEntryPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, 'main.js');
  if (existsSync(sibling)) return sibling;
  return join(packageRoot(), 'dist', 'cli', 'main.js');
}

/**
 * Runs in the emulator's process before `serve`: its stdin is a pipe from this process, so when this
 * process dies in any way (even SIGKILL, when no exit hook runs) the pipe ends and the emulator exits
 * rather than lingering in its own process group. stdin is unref'd so it never keeps the emulator alive.
 */
const WATCHDOG = [
  'const [mainUrl, ...rest] = process.argv.slice(1);',
  'process.argv = [process.argv[0], new URL(mainUrl).pathname, ...rest];',
  "process.stdin.on('end', () => process.exit(0));",
  "process.stdin.on('error', () => process.exit(0));",
  'process.stdin.resume();',
  'process.stdin.unref?.();',
  'await import(mainUrl);',
].join('\n');

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A second Ctrl-C exits the process at once: the emulator must not outlive it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export async function startEmbeddedEmulator(options: EmbeddedEmulatorOptions): Promise<EmbeddedEmulator> {
  const entry = cliEntryPath();
  if (!existsSync(entry)) {
    throw new InferbenchError('RUN_FAILED', `cannot start the embedded emulator: ${entry} does not exist`, {
      hint: 'build first (`npm run build`), or give a target with --base-url',
    });
  }
  const apiKey = `ib-embedded-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const managementKey = `ib-embedded-mgmt-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const args = [
    '--input-type=module',
    '-e',
    WATCHDOG,
    '--',
    pathToFileURL(entry).href,
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--api-key',
    apiKey,
    '--management-key',
    managementKey,
  ];
  if (options.configPath) args.push('--config', options.configPath);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[name] = value;
  // Its own process group: a terminal's Ctrl-C goes to the foreground group, and the emulator must keep
  // serving through the graceful stop that follows; it is stopped by stop() or the exit hook instead.
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env, detached: true });
  running.add(child);
  installExitHook();
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.once('exit', () => running.delete(child));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };

  try {
    const url = await readFirstLine(child, options.startupTimeoutMs ?? 30_000);
    return { url: url.replace(/\/+$/, '').replace(/\/v1$/, ''), apiKey, managementKey, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readFirstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolveLine, reject) => {
    let stdout = '';
    let stderr = '';
    const finish = (error: Error | null, line?: string): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onStdout);
      child.off('exit', onExit);
      // Keep draining the pipes so a chatty emulator never blocks on a full pipe.
      child.stdout?.resume();
      if (error) reject(error);
      else resolveLine(line as string);
    };
    const onStdout = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        const line = stdout.slice(0, newline).trim();
        if (/^https?:\/\//.test(line)) finish(null, line);
        else finish(failure(`its first line of output was not a URL: ${JSON.stringify(line.slice(0, 200))}`, stderr));
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      finish(failure(`it exited (${signal ?? `code ${code}`}) before printing its URL`, stderr));
    };
    const timer = setTimeout(() => finish(failure(`it printed no URL within ${timeoutMs} ms`, stderr)), timeoutMs);
    child.stdout?.on('data', onStdout);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.once('exit', onExit);
  });
}

function failure(what: string, stderr: string): InferbenchError {
  const detail = stderr.trim() ? `; its stderr: ${stderr.trim().slice(0, 500)}` : '';
  return new InferbenchError('RUN_FAILED', `the embedded emulator did not start: ${what}${detail}`, {
    hint: 'run `inferbench serve --port 0` to see why, or give a target with --base-url',
  });
}
