/**
 * `inferbench serve`: runs the emulator until Ctrl-C/SIGTERM. The base URL (no `/v1`) is ALONE on the
 * first stdout line, so scripts and test helpers read it with one line read; everything else (models,
 * auth mode) goes to stderr. Keys given as flags are never echoed.
 */
import type { CommandRegistration } from './command.js';
import { InferbenchError } from '../../errors.js';
import { createEmulator } from '../../emulator/emulator.js';
import { builtinCatalog } from '../../emulator/catalog/builtin-catalog.js';
import { loadCatalogConfig } from '../../emulator/catalog/config-file.js';
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { isServePrimary, runServePrimary, serveWorkerRole } from './serve-workers.js';

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
}

export const serveCommand: CommandRegistration = (parser, ctx) =>
  parser.command<ServeArgs>(
    'serve',
    'Run the offline emulator of the inference API; prints its base URL on the first line',
    (y) =>
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
        }) as never,
    async (args) => {
      if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65_535) {
        throw new InferbenchError('BAD_USAGE', `--port must be an integer from 0 to 65535, got ${String(args.port)}`);
      }
      if (!Number.isInteger(args.workers) || args.workers < 1 || args.workers > 64) {
        throw new InferbenchError(
          'BAD_USAGE',
          `--workers must be an integer from 1 to 64, got ${String(args.workers)}`,
        );
      }
      const filesDir = args.files === undefined ? undefined : resolve(ctx.cwd, args.files);
      if (filesDir !== undefined && !statSync(filesDir, { throwIfNoEntry: false })?.isDirectory()) {
        throw new InferbenchError('BAD_USAGE', `--files ${args.files} is not a directory`, {
          hint: 'pass a directory of files to serve',
        });
      }
      const catalog = args.config
        ? loadCatalogConfig(resolve(ctx.cwd, args.config), args.org)
        : builtinCatalog(args.org);
      if (isServePrimary(args.workers)) return runServePrimary(args.workers, ctx);
      const worker = serveWorkerRole();
      const apiKeys = (args['api-key'] ?? []).filter((k) => k.length > 0);
      const managementKeys = (args['management-key'] ?? []).filter((k) => k.length > 0);
      let emulator;
      try {
        emulator = await createEmulator({
          host: args.host,
          port: args.port,
          catalog,
          org: args.org,
          apiKeys,
          managementKeys,
          filesDir,
          doneMarker: args['done-marker'],
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new InferbenchError(
          'BAD_USAGE',
          `cannot listen on ${args.host}:${args.port}: ${code ?? (error as Error).message}`,
          {
            cause: error,
            hint:
              code === 'EADDRINUSE'
                ? 'the port is taken: pick another with --port, or --port 0 for any free port'
                : undefined,
          },
        );
      }
      if (worker) worker.announce(emulator.url);
      else ctx.stdout.write(`${emulator.url}\n`);
      const say = (line: string): boolean => (worker && !worker.first) || ctx.stderr.write(`${line}\n`);
      say(`inferbench emulator listening on ${emulator.url} (OpenAI-compatible base URL: ${emulator.url}/v1)`);
      say(`models: ${catalog.models.map((m) => m.id).join(', ')}`);
      if (catalog.endpoints.length > 0)
        say(`dedicated endpoints: ${catalog.endpoints.map((e) => `${e.endpointId} (org ${e.orgName})`).join(', ')}`);
      say(
        apiKeys.length === 0
          ? 'auth: any non-empty API key is accepted'
          : `auth: ${apiKeys.length} API key(s) configured`,
      );
      say(
        managementKeys.length === 0
          ? 'management: any non-empty management key is accepted'
          : `management: ${managementKeys.length} management key(s) configured`,
      );
      if (filesDir) say(`files: ${filesDir}`);
      say('Ctrl-C to stop');
      await new Promise<void>((done) => {
        if (ctx.interrupt.aborted) return done();
        ctx.interrupt.addEventListener('abort', () => done(), { once: true });
        void worker?.disconnected.then(() => done());
      });
      await emulator.close();
      worker?.release();
      say('emulator stopped');
      ctx.exitCode = 0;
    },
  );
