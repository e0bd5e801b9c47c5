/**
 * DESIGN.md's layering, checked on src/ with a real parser (test/helpers/architecture-rules.ts): layer
 * edges for value imports, type imports that never point up or across, no import cycle between files,
 * packages in the layers they belong to, `process` only in cli/ (and bench/, the other entry point), and
 * sections (profile/sections/) that never value-import each other.
 * The rules are tested on a fixture tree with one violation of each kind, so a rule that stopped
 * working would show here, not by letting src/ pass.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkArchitecture } from './helpers/architecture-rules.js';

const SRC = resolve(import.meta.dirname, '..', 'src');
const FIXTURE = resolve(import.meta.dirname, 'fixtures', 'architecture', 'src');

describe('architecture', () => {
  it('src/ keeps every rule of DESIGN.md', () => {
    expect(checkArchitecture(SRC)).toEqual([]);
  });

  it('finds one violation of each kind in the fixture tree, and nothing in what only looks alike', () => {
    const found = checkArchitecture(FIXTURE).map((violation) => `${violation.kind}: ${violation.message}`);
    expect(found.sort()).toEqual(
      [
        'cycle: import cycle: util/first.ts -> util/second.ts -> util/first.ts',
        'layer: aggregate/imports-report.ts:2 imports report/summary.ts (aggregate -> report)',
        'layer: report/value-from-profile.ts:2 imports profile/group-key.ts (report -> profile)',
        'package: runner/uses-undici.ts:2 imports undici, which belongs to client, bench',
        'process: workload/reads-env.ts:2 uses process (only cli and bench may)',
        'section: profile/sections/capacity.ts:3 imports profile/sections/dataset.ts (section capacity -> section dataset of profile/sections/)',
        'type-layer: aggregate/types-from-report.ts:2 imports types from report/summary.ts (aggregate -> report, upward or across)',
        'type-layer: emulator/harness-type.ts:2 imports types from profile/group.ts (emulator -> profile, upward or across)',
        'unknown-layer: extra/orphan.ts: "extra" is no layer of DESIGN.md',
      ].sort(),
    );
  });
});
