/**
 * `inferbench serve`: runs the emulator until Ctrl-C/SIGTERM. The base URL (no `/v1`) is ALONE on the
 * first stdout line, so scripts and test helpers read it with one line read; everything else (models,
 * auth mode) goes to stderr. Keys given as flags are never echoed.
 */
import type { CommandImplementation } from './command.js';
import { InferbenchError } from '../../errors.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../emulator/emulator.js';
import type { Catalog } from '../../emulator/catalog/catalog.js';
import { builtinCatalog } from '../../emulator/catalog/builtin-catalog.js';
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { isServePrimary, runServePrimary, type ServeWorkerRole, serveWorkerRole } from './serve-workers.js';
import type { CliContext } from '../context.js';
import { parseDurationMs } from '../../util/duration.js';
import {
  resolveServerTimeouts,
  type ServerTimeouts,
  serverTimeoutsProblem,
} from '../../emulator/http/server-timeouts.js';

interface ServeArgs {
  host: string;
  port: number;
  config?: string;
  'api-key'?: string[];
  'management-key'?: string[];
  org: string;
  files?: string;
  'done-marker': boolean;
  workers: number;
  'keep-alive-timeout'?: string;
  'headers-timeout'?: string;
  'request-timeout'?: string;
}

/** Registers `inferbench serve`. */
export const serveCommand: CommandImplementation = (ctx) => ({
  builder: (y) =>
    y
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
      .option('port', { type: 'number', default: 8080, describe: 'Port (0 = any free port)' })
      .option('config', { type: 'string', describe: 'YAML file extending or replacing the built-in catalog' })
      .option('api-key', {
        type: 'string',
        array: true,
        describe: 'Accepted API key (repeatable; none: any non-empty key)',
      })
      .option('management-key', {
        type: 'string',
        array: true,
        describe: 'Accepted management key (repeatable; none: any non-empty key)',
      })
      .option('org', {
        type: 'string',
        default: 'local',
        describe: 'Organization that manages the dedicated endpoints',
      })
      .option('files', { type: 'string', describe: 'Directory served by GET /v1/files/{id}/content' })
      .option('done-marker', { type: 'boolean', default: false, describe: 'End streams with data: [DONE]' })
      .option('workers', {
        type: 'number',
        default: 1,
        describe: 'Worker processes sharing the port (capacity and limits are per worker)',
      })
      .option('keep-alive-timeout', {
        type: 'string',
        describe: 'Close idle keep-alive connections after (default 65s; 0: never)',
      })
      .option('headers-timeout', {
        type: 'string',
        describe: 'Close clients that take longer to send headers (default 60s; 0: never)',
      })
      .option('request-timeout', {
        type: 'string',
        describe: 'Close clients that take longer to send a whole request (default 300s; 0: never)',
      }) as never,
  handler: (args) => serve(args as unknown as ServeArgs, ctx),
});

/** Checks the flags the parser cannot; returns the --files directory, absolute, if given. */
function checkServeArgs(args: ServeArgs, cwd: string): string | undefined {
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65_535) {
    throw new InferbenchError('BAD_USAGE', `--port must be an integer from 0 to 65535, got ${String(args.port)}`);
  }
  if (!Number.isInteger(args.workers) || args.workers < 1 || args.workers > 64) {
    throw new InferbenchError('BAD_USAGE', `--workers must be an integer from 1 to 64, got ${String(args.workers)}`);
  }
  const filesDir = args.files === undefined ? undefined : resolve(cwd, args.files);
  if (filesDir !== undefined && !statSync(filesDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new InferbenchError('BAD_USAGE', `--files ${args.files} is not a directory`, {
      hint: 'pass a directory of files to serve',
    });
  }
  return filesDir;
}

/** The timeout flags given, in milliseconds (absent ones keep the emulator's defaults). */
function serveTimeouts(args: ServeArgs): Partial<ServerTimeouts> {
  const ms = (flag: 'keep-alive-timeout' | 'headers-timeout' | 'request-timeout'): number | undefined => {
    const text = args[flag];
    if (text === undefined) return undefined;
    const value = parseDurationMs(text);
    if (value === undefined)
      throw new InferbenchError('BAD_USAGE', `--${flag} must be a duration such as 30s, 500ms or 0, got ${text}`);
    return value;
  };
  const timeouts = {
    keepAliveTimeoutMs: ms('keep-alive-timeout'),
    headersTimeoutMs: ms('headers-timeout'),
    requestTimeoutMs: ms('request-timeout'),
  };
  const problem = serverTimeoutsProblem(resolveServerTimeouts(timeouts));
  if (problem !== undefined)
    throw new InferbenchError('BAD_USAGE', `--headers-timeout and --request-timeout: ${problem}`);
  return timeouts;
}

/** Runs the emulator (or, with --workers, the primary of its workers) until interrupted. */
async function serve(args: ServeArgs, ctx: CliContext): Promise<void> {
  const filesDir = checkServeArgs(args, ctx.cwd);
  const timeouts = serveTimeouts(args);
  // Loaded before forking: a bad --config fails here, once, before any worker starts.
  // The config's schema (zod, yaml) loads only for --config: the embedded emulator starts without one.
  const catalog = args.config
    ? (await import('../../emulator/catalog/config-file.js')).loadCatalogConfig(resolve(ctx.cwd, args.config), args.org)
    : builtinCatalog(args.org);
  if (isServePrimary(args.workers)) return runServePrimary(args.workers, ctx);
  const worker = serveWorkerRole();
  const options: EmulatorOptions = {
    host: args.host,
    port: args.port,
    catalog,
    org: args.org,
    apiKeys: (args['api-key'] ?? []).filter((k) => k.length > 0),
    managementKeys: (args['management-key'] ?? []).filter((k) => k.length > 0),
    filesDir,
    doneMarker: args['done-marker'],
    timeouts,
  };
  const emulator = await listen(options);
  if (worker) worker.announce(emulator.url);
  else ctx.stdout.write(`${emulator.url}\n`);
  // Only one process of a cluster speaks, so the lines are not printed once per worker.
  const say = (line: string): boolean => (worker && !worker.first) || ctx.stderr.write(`${line}\n`);
  describeEmulator(say, emulator.url, catalog, options);
  await untilStopped(ctx.interrupt, worker);
  await emulator.close();
  worker?.release();
  say('emulator stopped');
  ctx.exitCode = 0;
}

/** Starts the emulator; a port it cannot listen on is a usage error, with a hint when it is taken. */
async function listen(options: EmulatorOptions): Promise<Emulator> {
  try {
    return await createEmulator(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InferbenchError(
      'BAD_USAGE',
      `cannot listen on ${options.host}:${options.port}: ${code ?? (error as Error).message}`,
      {
        cause: error,
        hint:
          code === 'EADDRINUSE'
            ? 'the port is taken: pick another with --port, or --port 0 for any free port'
            : undefined,
      },
    );
  }
}

/** The startup lines on stderr: where it listens, what it serves, how it checks keys (never the keys). */
function describeEmulator(say: (line: string) => void, url: string, catalog: Catalog, options: EmulatorOptions): void {
  const apiKeys = options.apiKeys ?? [];
  const managementKeys = options.managementKeys ?? [];
  say(`inferbench emulator listening on ${url} (OpenAI-compatible base URL: ${url}/v1)`);
  say(`models: ${catalog.models.map((m) => m.id).join(', ')}`);
  if (catalog.endpoints.length > 0)
    say(`dedicated endpoints: ${catalog.endpoints.map((e) => `${e.endpointId} (org ${e.orgName})`).join(', ')}`);
  say(
    apiKeys.length === 0 ? 'auth: any non-empty API key is accepted' : `auth: ${apiKeys.length} API key(s) configured`,
  );
  say(
    managementKeys.length === 0
      ? 'management: any non-empty management key is accepted'
      : `management: ${managementKeys.length} management key(s) configured`,
  );
  if (options.filesDir) say(`files: ${options.filesDir}`);
  say('Ctrl-C to stop');
}

/** Resolves on Ctrl-C/SIGTERM, or when a worker's primary goes away. */
function untilStopped(interrupt: AbortSignal, worker: ServeWorkerRole | undefined): Promise<void> {
  return new Promise<void>((done) => {
    if (interrupt.aborted) return done();
    interrupt.addEventListener('abort', () => done(), { once: true });
    void worker?.disconnected.then(() => done());
  });
}
