/**
 * Guards the layering of DESIGN.md: reads every import in src/ and fails on one that points the wrong way.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Layer -> layers it may import (besides itself). errors.ts is the layer "errors". */
const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  util: ['errors'],
  protocol: ['errors', 'util'],
  profile: ['errors', 'util', 'protocol'],
  workload: ['errors', 'util', 'protocol', 'profile'],
  schedule: ['errors', 'util', 'profile'],
  client: ['errors', 'util', 'protocol', 'profile'],
  measure: ['errors', 'util', 'protocol', 'client', 'report'],
  aggregate: ['errors', 'util', 'protocol', 'client', 'measure', 'profile', 'report'],
  runner: ['errors', 'util', 'protocol', 'profile', 'workload', 'schedule', 'client', 'measure', 'aggregate', 'report'],
  report: ['errors', 'util', 'protocol', 'profile', 'client', 'measure', 'aggregate'],
  'http-load': ['errors', 'util', 'protocol', 'profile'],
  emulator: ['errors', 'util', 'protocol'],
  cli: ['*'],
  bench: ['*'],
};

/** Files of report/ that only describe data (types and pure constants) and may be imported from below. */
const TYPE_ONLY_EXCEPTIONS = new Set(['report/run-summary.ts']);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel.length === 1 ? (rel[0] as string).replace(/\.ts$/, '') : (rel[0] as string);
}

/** Source without comments and string literals, so `import './arrival-process.js'` is not a use of `process`. */
function codeWithoutCommentsAndStrings(text: string): string {
  return text.replace(/\/\/.*|\/\*[\s\S]*?\*\/|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "''");
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

describe('architecture', () => {
  const files = walk(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('every import points in an allowed direction', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      const allowed = ALLOWED[from];
      if (!allowed) {
        violations.push(`${relative(SRC, file)}: unknown layer "${from}" (add it to DESIGN.md and this test)`);
        continue;
      }
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? match[2];
        if (!spec || !spec.startsWith('.')) continue;
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        const to = layerOf(target);
        const targetRel = relative(SRC, target).split(sep).join('/');
        if (to === from || allowed.includes('*') || allowed.includes(to) || TYPE_ONLY_EXCEPTIONS.has(targetRel)) continue;
        violations.push(`${relative(SRC, file)} imports ${targetRel} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('only cli/ and bench/ touch process', () => {
    const offenders = files
      .filter((f) => !['cli', 'bench'].includes(layerOf(f)))
      .filter((f) => /\bprocess\.(?!hrtime|cpuUsage|memoryUsage)[a-zA-Z]/.test(codeWithoutCommentsAndStrings(readFileSync(f, 'utf8'))))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
