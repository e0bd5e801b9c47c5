/**
 * `report`, `compare` and `merge` given generated broken run folders (fast-check, fixed seed): summary.json
 * truncated at any offset, bytes overwritten, a hostile value at any of its keys, a foreign JSON document,
 * a missing file, and requests.csv / timeseries.csv garbage. Each must exit 2 with a message naming the
 * folder or file (or 0 / 99 when the damage happens to leave a usable run), never exit 1 or print a stack
 * trace; a value of another type at any key of summary.json is exit 2 naming the file and the key's JSON
 * path (the result schema, metrics/run-summary.ts). The CLI runs in-process; a few dozen cases per property
 * keep the file fast.
 * Slow on purpose (a fuzzer: report, compare and merge over 60 damaged run folders): not in test:fast.
 * @module-tag slow
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import type { CliRunResult } from '../helpers/cli.js';
import { FUZZ_SEED, hostileValue, keyPaths, STACK_LINE, withValueAt } from '../helpers/hostile-values.js';
import type { KeyPath } from '../helpers/hostile-values.js';
import { makeRunDir } from '../fixtures/make-run.js';

let root: string;
let baselineDir: string;
let candidateDir: string;
let summaryData: unknown;
let summaryKeys: KeyPath[];
let caseNumber = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-fuzz-folders-'));
  baselineDir = makeRunDir(join(root, 'baseline'), { seed: 3, requestsPerGroup: 20, withRequestsCsv: true }).dir;
  candidateDir = makeRunDir(join(root, 'candidate'), { seed: 4, requestsPerGroup: 20, withRequestsCsv: true }).dir;
  summaryData = JSON.parse(readFileSync(join(baselineDir, 'summary.json'), 'utf8'));
  summaryKeys = keyPaths(summaryData);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** One way to break a run folder, applied to a fresh copy of the baseline. */
type Damage = (dir: string) => void;

const FILES = ['summary.json', 'requests.csv', 'timeseries.csv'] as const;

const damage: fc.Arbitrary<{ label: string; apply: Damage }> = fc.oneof(
  fc.tuple(fc.constantFrom(...FILES), fc.nat()).map(([file, at]) => ({
    label: `${file} truncated at byte ${at}`,
    apply: (dir: string) => {
      const bytes = readFileSync(join(dir, file));
      writeFileSync(join(dir, file), bytes.subarray(0, at % bytes.length));
    },
  })),
  fc
    .tuple(
      fc.constantFrom(...FILES),
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }),
    )
    .map(([file, edits]) => ({
      label: `${file} with ${edits.length} byte(s) overwritten`,
      apply: (dir: string) => {
        const bytes = readFileSync(join(dir, file));
        for (const [offset, byte] of edits) bytes[offset % bytes.length] = byte;
        writeFileSync(join(dir, file), bytes);
      },
    })),
  fc.tuple(fc.nat(), hostileValue()).map(([index, value]) => ({
    label: `summary.json with a hostile value at key #${index}`,
    apply: (dir: string) => {
      const path = summaryKeys[index % summaryKeys.length]!;
      writeFileSync(join(dir, 'summary.json'), JSON.stringify(withValueAt(summaryData, path, value)));
    },
  })),
  fc.oneof(fc.jsonValue(), fc.constant({ schema_version: 2, run_id: 'x', groups: [] })).map((value) => ({
    label: 'summary.json of another schema',
    apply: (dir: string) => writeFileSync(join(dir, 'summary.json'), JSON.stringify(value) ?? 'null'),
  })),
  fc.constantFrom(...FILES).map((file) => ({
    label: `${file} missing`,
    apply: (dir: string) => rmSync(join(dir, file)),
  })),
  fc
    .tuple(fc.constantFrom('requests.csv', 'timeseries.csv'), fc.string({ unit: 'binary', maxLength: 300 }))
    .map(([file, garbage]) => ({
      label: `${file} replaced by garbage`,
      apply: (dir: string) => writeFileSync(join(dir, file), garbage),
    })),
);

/** A fresh, damaged copy of the baseline run folder. */
function damagedCopy(apply: Damage): string {
  const dir = join(root, `case-${++caseNumber}`);
  cpSync(baselineDir, dir, { recursive: true });
  apply(dir);
  return dir;
}

/** Exit 2 naming the damaged folder, or a usable run (0, or 99 for a compare that found a regression). */
function expectClean(result: CliRunResult, dir: string, usableCodes: readonly number[]): void {
  expect(result.stderr).not.toMatch(STACK_LINE);
  expect(result.stderr).not.toMatch(/internal error/);
  expect([2, ...usableCodes]).toContain(result.code);
  if (result.code === 2) expect(result.stderr).toContain(dir);
}

const command = fc.constantFrom('report', 'compare-baseline', 'compare-candidate', 'merge');

describe('fuzz: report, compare and merge given a damaged run folder', () => {
  it('exit 2 naming the folder (or a usable result), never a crash', async () => {
    const exits: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(command, damage, async (which, { apply }) => {
        const dir = damagedCopy(apply);
        const out = join(root, `out-${caseNumber}`);
        const argv =
          which === 'report'
            ? ['report', dir, '--out', out]
            : which === 'merge'
              ? ['merge', dir, candidateDir, '--out', out, '--force']
              : which === 'compare-baseline'
                ? ['compare', dir, candidateDir, '--force']
                : ['compare', baselineDir, dir, '--force'];
        const result = await runCliInProcess(argv, { cwd: root });
        expectClean(result, dir, which.startsWith('compare') ? [0, 99] : [0]);
        exits[result.code] = (exits[result.code] ?? 0) + 1;
      }),
      { seed: FUZZ_SEED, numRuns: 60 },
    );
    // The damage is mostly fatal; some of it (a byte in a CSV cell) leaves a usable run.
    expect(exits[2]).toBeGreaterThan(10);
    expect(exits[0]).toBeGreaterThan(0);
  });

  it('a value of another type at any key of summary.json is exit 2 naming the file and its JSON path', async () => {
    const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
    // Keys the schema leaves open (the profile as run) or where null is a value (never-measured figures).
    const checked = summaryKeys.filter((path) => path[0] !== 'profile' || path[1] !== 'resolved');
    let named = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), hostileValue(), async (index, value) => {
        const path = checked[index % checked.length]!;
        const original = valueAt(summaryData, path);
        fc.pre(kind(value) !== kind(original) && value !== null && original !== null && value !== undefined);
        const dir = damagedCopy((d) =>
          writeFileSync(join(d, 'summary.json'), JSON.stringify(withValueAt(summaryData, path, value))),
        );
        const result = await runCliInProcess(['report', dir, '--out', join(root, `out-${caseNumber}`)], { cwd: root });
        expect(result.code, `${jsonPath(path)} = ${JSON.stringify(value)}`).toBe(2);
        expect(result.stderr).toContain(`${join(dir, 'summary.json')}: ${jsonPath(path)}`);
        expect(result.stderr).not.toMatch(STACK_LINE);
        named++;
      }),
      { seed: FUZZ_SEED, numRuns: 40 },
    );
    expect(named).toBeGreaterThan(10);
  });

  it('a folder that is not a run at all (a file, an empty folder, a missing path) exits 2 naming it', async () => {
    const empty = join(root, 'empty');
    cpSync(baselineDir, empty, { recursive: true, filter: (source) => source === baselineDir });
    const file = join(baselineDir, 'requests.csv');
    const missing = join(root, 'does-not-exist');
    for (const path of [empty, file, missing]) {
      for (const argv of [
        ['report', path],
        ['compare', path, candidateDir],
        ['merge', path, candidateDir, '--out', join(root, 'm')],
      ]) {
        const result = await runCliInProcess(argv, { cwd: root });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(path);
        expect(result.stderr).not.toMatch(STACK_LINE);
      }
    }
  });
});

function valueAt(document: unknown, path: KeyPath): unknown {
  let at = document;
  for (const segment of path) at = (at as Record<string | number, unknown>)[segment];
  return at;
}

/** `groups[0].metrics.ttft_ms.p50`, as the BAD_RESULTS message writes a path. */
function jsonPath(path: KeyPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
