/** `inferbench catalog`: prints the emulator's public model catalog as JSON, in the default, router or hub format. */
import type { CommandRegistration } from './command.js';
import type { CatalogFormat } from '../../protocol/models.js';
import { builtinCatalog } from '../../emulator/catalog/builtin-catalog.js';
import { loadCatalogConfig } from '../../emulator/catalog/config-file.js';
import { CATALOG_FORMATS, publicCatalog } from '../../emulator/catalog/public-formats.js';
import { resolve } from 'node:path';

interface CatalogArgs {
  format: CatalogFormat;
  config?: string;
}

export const catalogCommand: CommandRegistration = (parser, ctx) =>
  parser.command<CatalogArgs>(
    'catalog',
    "Print the emulator's public model catalog (JSON)",
    (y) =>
      y
        .option('format', {
          type: 'string',
          choices: CATALOG_FORMATS,
          default: 'default',
          describe: 'Catalog format: default, router or hub',
        })
        .option('config', { type: 'string', describe: 'Emulator config YAML (as for serve --config)' }) as never,
    (args) => {
      const catalog = args.config ? loadCatalogConfig(resolve(ctx.cwd, args.config)) : builtinCatalog();
      ctx.stdout.write(`${JSON.stringify(publicCatalog(catalog.models, args.format), null, 2)}\n`);
    },
  );
