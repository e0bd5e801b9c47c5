/**
 * The floor under a capacity step's tests: the design effect pooled over the search's earlier decided
 * steps. Online (search-unit.ts) and in `--reevaluate` (reevaluate.ts) it comes from the same function on
 * the same stored blocks, so a replay decides as the search did; here a clean step after a clustered one
 * needs more blocks to PASS than it would alone. And the ramp-up blocks (the first, and the step's
 * warmup) that no test reads, and the step warmup each group records.
 */
import { describe, expect, it } from 'vitest';
import type { CapacityObjective } from '../../../../src/aggregate/capacity/capacity-slo.js';
import { pooledDesignEffect } from '../../../../src/aggregate/capacity/design-effect.js';
import type { CapacityStepsFile, StoredBlock } from '../../../../src/metrics/capacity-summary.js';
import { resolveCapacity } from '../../../../src/profile/sections/capacity.js';
import { capacitySummary } from '../../../../src/runner/capacity/capacity-result.js';
import { capacityStepsFile, reevaluateCapacity } from '../../../../src/runner/capacity/reevaluate.js';
import { designEffectFloors } from '../../../../src/runner/capacity/search-unit.js';

const ERRORS: CapacityObjective = { key: 'error_rate', metric: 'error_rate', allowed: 0.1, limit: 0.1 };
const SPEC = { alpha: 0.05, beta: 0.05, indifference: 0.5, blockMs: 1000, seed: 1 };

const block = (failed: number, total = 20): StoredBlock => ({ ok: total - failed, failed, histograms: {} });
/** Ramp-up block first (read by no test), then failures of 3 and 0 in turn: clustered, about 7.5% failed. */
const clustered = [block(0), ...Array.from({ length: 24 }, (_, i) => block(i % 2 === 0 ? 3 : 0))];
const clean = [block(0), ...Array.from({ length: 6 }, () => block(0))];

function file(
  steps: { load: number; blocks: StoredBlock[]; ramp_blocks?: number }[],
  stepWarmupMs?: number,
): CapacityStepsFile {
  return {
    schema_version: 1,
    run_id: 'test',
    objectives: [{ key: ERRORS.key, limit: ERRORS.limit, allowed: ERRORS.allowed }],
    settings: {} as CapacityStepsFile['settings'],
    groups: [
      {
        group: 'g',
        mode: 'rate',
        unit: 'req/s',
        ...(stepWarmupMs === undefined ? {} : { step_warmup_ms: stepWarmupMs }),
        steps: steps.map((s, i) => ({ step: i + 1, ...s, outcome: 'pass', reason: '', overload: null })),
      },
    ],
  };
}

describe('design-effect floors', () => {
  it('pool the decided steps before, read as the fit reads them (ramp-up left out)', () => {
    const previous = [{ load: 10, blocks: clustered, overload: null, outcome: 'pass' as const }];
    const floors = designEffectFloors(previous, [ERRORS]);
    const expected = pooledDesignEffect([clustered.slice(1).map((b) => ({ exceeded: b.failed, total: 20 }))]);
    expect(floors[ERRORS.key]).toBeCloseTo(expected, 12);
    expect(expected).toBeGreaterThan(1.5);
    // An undecided step is left out.
    expect(designEffectFloors([{ ...previous[0]!, outcome: 'inconclusive' }], [ERRORS])[ERRORS.key]).toBe(1);
  });

  it('make a re-evaluated clean step after a clustered one read more blocks before it PASSes', () => {
    const alone = reevaluateCapacity(file([{ load: 20, blocks: clean }]), [ERRORS], SPEC)[0]!;
    const after = reevaluateCapacity(
      file([
        { load: 10, blocks: clustered },
        { load: 20, blocks: clean },
      ]),
      [ERRORS],
      SPEC,
    )[0]!;
    expect(after.steps[0]?.outcome).toBe('pass');
    expect(alone.steps[0]?.outcome).toBe('pass');
    expect(after.steps[1]?.outcome).toBe('pass');
    // Alone: two clean blocks of 20 reach the PASS bound; floored by the clustered step's effect, three.
    expect(alone.steps[0]?.tests[0]?.requests).toBe(40);
    expect(after.steps[1]?.tests[0]?.requests).toBe(60);
  });
});

describe('ramp-up blocks', () => {
  it('are read by no test: a warmup that spans the transient leaves it out of the decision and the fit', () => {
    // Three blocks of a transient with 45% failing (short of an error burst, which fails a step even in
    // its ramp-up), then clean ones.
    const blocks = [block(9), block(9), block(9), ...Array.from({ length: 4 }, () => block(0))];
    const [plain] = reevaluateCapacity(file([{ load: 10, blocks }]), [ERRORS], SPEC);
    const [ramped] = reevaluateCapacity(file([{ load: 10, blocks, ramp_blocks: 3 }]), [ERRORS], SPEC);
    expect(plain?.steps[0]?.outcome).toBe('fail');
    expect(ramped?.steps[0]?.outcome).toBe('pass');
    expect(ramped?.steps[0]?.tests[0]?.requests).toBe(40);
    // The fit reads the same blocks as the tests: nothing over, so the capacity is at least the load.
    expect(ramped?.estimate).toMatchObject({ capacity: 10, censored: true });
  });

  it("keep the group's step warmup from capacity-steps.json through --reevaluate to summary.json", () => {
    const blocks = [block(0), block(0), block(0), ...Array.from({ length: 4 }, () => block(0))];
    const [group] = reevaluateCapacity(file([{ load: 10, blocks, ramp_blocks: 3 }], 2000), [ERRORS], SPEC);
    expect(group?.stepWarmupMs).toBe(2000);
    const spec = resolveCapacity(undefined, {});
    const summary = capacitySummary([group!], [ERRORS], spec);
    expect(summary.groups[0]?.step_warmup_ms).toBe(2000);
    // The default as set (null), and each group's applied value, stored again for the next --reevaluate.
    expect(summary.settings.step_warmup_ms).toBeNull();
    const stored = capacityStepsFile('again', [group!], summary);
    expect(stored.groups[0]).toMatchObject({ step_warmup_ms: 2000, steps: [{ ramp_blocks: 3 }] });
    // A file written before the warmup was recorded: not known, and not made up.
    const [old] = reevaluateCapacity(file([{ load: 10, blocks }]), [ERRORS], SPEC);
    expect(capacitySummary([old!], [ERRORS], spec).groups[0]?.step_warmup_ms).toBeNull();
  });
});
