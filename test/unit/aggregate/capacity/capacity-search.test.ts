/**
 * The search planner against known thresholds: its probe sequences (up, down, bisection), where and why it
 * ends, whole numbers for concurrency without repeats, and an inconclusive step ending it.
 */
import { describe, expect, it } from 'vitest';
import {
  CapacitySearch,
  type SearchOptions,
  type StepOutcome,
} from '../../../../src/aggregate/capacity/capacity-search.js';

const RATE: SearchOptions = { start: 10, integer: false, resolution: 0.05, maxSteps: 12, min: 0.05, max: 4096 };
const CONCURRENCY: SearchOptions = { ...RATE, start: 4, integer: true, min: 1, max: 4096 };

/** Runs a search to its end against `outcome(load)`; returns the search. */
function drive(options: SearchOptions, outcome: (load: number) => StepOutcome): CapacitySearch {
  const search = new CapacitySearch(options);
  for (let load = search.next(); load !== null; load = search.next()) search.record(load, outcome(load));
  return search;
}

const threshold = (limit: number) => (load: number) => (load <= limit ? 'pass' : 'fail') as StepOutcome;

describe('CapacitySearch', () => {
  it('probes up geometrically, then bisects on a log scale until 5% resolution', () => {
    const search = drive(RATE, threshold(37));
    expect(search.history.map((step) => step.load)).toEqual([10, 20, 40, 28.3, 33.6, 36.7, 38.3]);
    expect(search.lastPass).toBe(36.7);
    expect(search.firstFail).toBe(38.3);
    expect((search.firstFail as number) / (search.lastPass as number) - 1).toBeLessThanOrEqual(0.05);
    expect(search.endReason).toBe('resolved to 5%');
    expect(search.next()).toBeNull();
  });

  it('gives the same sequence every time', () => {
    const a = drive(RATE, threshold(37)).history;
    const b = drive(RATE, threshold(37)).history;
    expect(b).toEqual(a);
  });

  it('probes down when the start fails, then bisects', () => {
    const search = drive(RATE, threshold(1.7));
    const loads = search.history.map((step) => step.load);
    expect(loads.slice(0, 5)).toEqual([10, 5, 2.5, 1.25, 1.77]);
    expect(search.history[3]?.outcome).toBe('pass');
    expect(search.lastPass as number).toBeLessThanOrEqual(1.7);
    expect(search.firstFail as number).toBeGreaterThan(1.7);
    expect(search.endReason).toBe('resolved to 5%');
  });

  it('ends at the minimum when even the minimum fails, and at the maximum when it passes', () => {
    const failing = drive({ ...RATE, start: 0.2 }, () => 'fail');
    expect(failing.history.map((step) => step.load)).toEqual([0.2, 0.1, 0.05]);
    expect(failing.endReason).toBe('fails at the minimum load');
    expect(failing.lastPass).toBeNull();
    const passing = drive({ ...RATE, start: 1000 }, () => 'pass');
    expect(passing.history.map((step) => step.load)).toEqual([1000, 2000, 4000, 4096]);
    expect(passing.endReason).toBe('passes at the maximum load');
    expect(passing.firstFail).toBeNull();
  });

  it('stops at max steps', () => {
    const search = drive({ ...RATE, resolution: 0.0001, maxSteps: 6 }, threshold(37));
    expect(search.history).toHaveLength(6);
    expect(search.endReason).toBe('max steps');
  });

  it('uses whole numbers for concurrency, never repeats one, and ends between neighbours', () => {
    for (let limit = 1; limit <= 70; limit++) {
      const search = drive({ ...CONCURRENCY, resolution: 0.01 }, threshold(limit));
      const loads = search.history.map((step) => step.load);
      expect(loads.every((load) => Number.isInteger(load) && load >= 1)).toBe(true);
      expect(new Set(loads).size).toBe(loads.length);
      if (limit > 1) expect([search.lastPass, search.firstFail]).toEqual([limit, limit + 1]);
    }
    const search = drive({ ...CONCURRENCY, resolution: 0.01 }, threshold(37));
    expect(search.history.map((step) => step.load)).toEqual([4, 8, 16, 32, 64, 48, 40, 36, 38, 37]);
    expect(search.endReason).toBe('resolved to whole numbers (37 passes, 38 fails)');
  });

  it('ends on an inconclusive step, with its reason', () => {
    const search = new CapacitySearch(RATE);
    search.record(search.next() as number, 'pass');
    search.record(search.next() as number, 'inconclusive', 'the harness was its own bottleneck');
    expect(search.next()).toBeNull();
    expect(search.endReason).toBe('inconclusive at 20 (the harness was its own bottleneck)');
    expect(search.lastPass).toBe(10);
    expect(search.history).toEqual([
      { load: 10, outcome: 'pass' },
      { load: 20, outcome: 'inconclusive' },
    ]);
  });

  it('goes on under an undecided step (a ceiling, neither pass nor fail) and ends with a pass below it', () => {
    // Passes up to 30, undecided (its tests at the cap) from 30 to 45, fails above.
    const search = drive(RATE, (load) => (load <= 30 ? 'pass' : load <= 45 ? 'undecided' : 'fail'));
    expect(search.history.map((step) => step.load)).toEqual([10, 20, 40, 28.3, 33.6, 30.8, 29.5]);
    expect(search.history[1]?.outcome).toBe('pass');
    expect(search.history[4]?.outcome).toBe('undecided');
    expect(search.lastPass).toBe(29.5);
    expect(search.firstFail).toBeNull();
    expect(search.endReason).toBe('resolved to 5% (undecided at 30.8)');
    // Undecided at the start: down from it, and at the minimum an end that says so, with its note.
    const low = drive({ ...RATE, start: 0.2, minNote: 'the lowest load a p99 decides at' }, () => 'undecided');
    expect(low.history.map((step) => step.load)).toEqual([0.2, 0.1, 0.05]);
    expect(low.endReason).toBe('undecided at the minimum load (the lowest load a p99 decides at)');
  });

  it('rejects options that cannot make a search', () => {
    expect(() => new CapacitySearch({ ...RATE, growth: 1 })).toThrow(/growth/);
    expect(() => new CapacitySearch({ ...RATE, min: 0 })).toThrow(/min/);
    expect(() => new CapacitySearch({ ...RATE, maxSteps: 0 })).toThrow(/max steps/);
  });
});
