/**
 * DESIGN.md's layering, checked on src/ with a real parser (test/helpers/architecture-rules.ts): layer
 * edges for value imports, type imports that never point up or across, no import cycle between files,
 * packages in the layers they belong to, `process` only in cli/ (and bench/, the other entry point),
 * sections (profile/sections/) that never value-import each other, a feature with a folder wholly in it
 * (no `dataset-x.ts` beside `dataset/`), and bench/ (top level, outside src/)
 * imported by nothing in src/ or the test helpers.
 * The rules are tested on a fixture tree with one violation of each kind, so a rule that stopped
 * working would show here, not by letting src/ pass.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkArchitecture } from './helpers/architecture-rules.js';

const TOP = resolve(import.meta.dirname, '..');
const FIXTURE = resolve(import.meta.dirname, 'fixtures', 'architecture');

describe('architecture', () => {
  it('src/ and bench/ keep every rule of DESIGN.md, and no test helper imports bench/', () => {
    const tree = { src: resolve(TOP, 'src'), bench: resolve(TOP, 'bench'), others: [resolve(TOP, 'test', 'helpers')] };
    expect(checkArchitecture(tree)).toEqual([]);
  });

  it('finds one violation of each kind in the fixture tree, and nothing in what only looks alike', () => {
    const tree = {
      src: resolve(FIXTURE, 'src'),
      bench: resolve(FIXTURE, 'bench'),
      others: [resolve(FIXTURE, 'helpers')],
    };
    const found = checkArchitecture(tree).map((violation) => `${violation.kind}: ${violation.message}`);
    expect(found.sort()).toEqual(
      [
        'cycle: import cycle: util/first.ts -> util/second.ts -> util/first.ts',
        'layer: aggregate/imports-report.ts:2 imports report/summary.ts (aggregate -> report)',
        'layer: cli/imports-bench.ts:2 imports bench/main.ts (bench/ is imported by none)',
        'layer: helpers/imports-bench.ts:2 imports bench/main.ts (bench/ is imported by none)',
        'unknown-layer: util/imports-helper.ts:2 imports helpers/server.ts: outside src/ is no layer',
        'layer: report/value-from-profile.ts:2 imports profile/group-key.ts (report -> profile)',
        'package: runner/uses-undici.ts:2 imports undici, which belongs to client, bench',
        'package: runner/requires-undici.ts:5 imports undici, which belongs to client, bench',
        'process: workload/reads-env.ts:2 uses process (only cli and bench may)',
        'room: report/capacity-stray.ts sits beside report/capacity/: a feature with a folder keeps its parts in it',
        'section: profile/sections/capacity.ts:3 imports profile/sections/dataset.ts (section capacity -> section dataset of profile/sections/)',
        'type-layer: aggregate/types-from-report.ts:2 imports types from report/summary.ts (aggregate -> report, upward or across)',
        'type-layer: emulator/harness-type.ts:2 imports types from profile/group.ts (emulator -> profile, upward or across)',
        'unknown-layer: extra/orphan.ts: "extra" is no layer of DESIGN.md',
      ].sort(),
    );
  });
});
