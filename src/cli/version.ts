/** The package version, read once from package.json (which ships beside dist/). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function inferbenchVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    cached = pkg.version;
  }
  return cached;
}
