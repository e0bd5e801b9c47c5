/** The package version, read once from package.json (which ships beside dist/). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

let cached: string | undefined;

export function inferbenchVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    cached = pkg.version;
  }
  return cached;
}
