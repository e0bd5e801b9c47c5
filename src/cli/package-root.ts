/**
 * The package's root folder (where package.json is), found from this file upwards, so that files shipped
 * beside dist/ are found the same from dist/cli/ (built or installed), src/cli/ (under vitest) and
 * dist-bench/src/cli/ (`npm run bench`'s own build of the layers, one folder deeper).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  cached = dir;
  return dir;
}
