/**
 * `inferbench catalog`: prints a public model catalog as JSON, in the default, router or hub format: the
 * emulator's own (built in, or `--config`), or with `--base-url` a real service's, read from
 * GET {URL}/public/v1/models?format=... (no key: the endpoint needs none; the proxy of the environment
 * applies). A service that cannot be reached, answers an error or no catalog JSON exits 3.
 */
import { resolve } from 'node:path';
import { proxySettingsFromEnv } from '../../client/proxy.js';
import { fetchPublicCatalog } from '../../client/public-catalog.js';
import { builtinCatalog } from '../../emulator/catalog/builtin-catalog.js';
import { loadCatalogConfig } from '../../emulator/catalog/config-file.js';
import { CATALOG_FORMATS, publicCatalog } from '../../emulator/catalog/public-formats.js';
import { InferbenchError } from '../../errors.js';
import type { CatalogFormat } from '../../protocol/models.js';
import { requestHeaders } from '../../runner/request-headers.js';
import type { CliContext } from '../context.js';
import { checkBaseUrl } from '../target-session.js';
import { inferbenchVersion } from '../version.js';
import type { CommandImplementation } from './command.js';

interface CatalogArgs {
  format: CatalogFormat;
  config?: string;
  'base-url'?: string;
}

export const catalogCommand: CommandImplementation = (ctx) => ({
  builder: (y) =>
    y
      .option('format', {
        type: 'string',
        choices: CATALOG_FORMATS,
        default: 'default',
        describe: 'Catalog format: default, router or hub',
      })
      .option('config', { type: 'string', describe: 'Emulator config YAML (as for serve --config)' })
      .option('base-url', {
        type: 'string',
        describe: "Read this service's catalog (GET URL/public/v1/models; no key needed) instead of the emulator's",
      }) as never,
  handler: async (args) => {
    ctx.stdout.write(`${JSON.stringify(await catalogOf(args as unknown as CatalogArgs, ctx), null, 2)}\n`);
  },
});

async function catalogOf(args: CatalogArgs, ctx: CliContext): Promise<unknown> {
  const baseUrl = args['base-url'];
  if (baseUrl === undefined) {
    const catalog = args.config ? loadCatalogConfig(resolve(ctx.cwd, args.config)) : builtinCatalog();
    return publicCatalog(catalog.models, args.format);
  }
  if (args.config !== undefined)
    throw new InferbenchError('BAD_USAGE', '--config is the emulator catalog and --base-url a service: give one', {
      hint: 'inferbench catalog --base-url https://api.example.com [--format router|hub]',
    });
  checkBaseUrl(baseUrl);
  const request = {
    baseUrl: baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''),
    headers: requestHeaders(inferbenchVersion(), {}),
    tls: null,
    proxy: proxySettingsFromEnv(ctx.env),
  };
  return fetchPublicCatalog(request, args.format);
}
