/**
 * The soak verdict: last third against first third after the warmup, inside the run's window; at most 10%
 * growth for memory, 10% or 1 ms for event-loop delay, fds bounded (no high 10% above the first third's);
 * and the per-bucket curve.
 */
import { describe, expect, it } from 'vitest';
import type { SoakSample } from '../../../bench/soak-sampler.js';
import { curveRows, soakVerdict } from '../../../bench/soak-verdict.js';

/** 30 samples a second apart from t = 0, with `at(i)` overriding fields. */
function samples(at: (i: number) => Partial<SoakSample> = () => ({})): SoakSample[] {
  return Array.from({ length: 30 }, (_, i) => ({
    t_s: i,
    rss_mb: 200,
    heap_used_mb: 100,
    fds: 40,
    eld_p99_ms: 2,
    eld_max_ms: 5,
    ...at(i),
  }));
}

const WHOLE_RUN = { startS: 0, endS: 29 };

function flatOf(verdict: ReturnType<typeof soakVerdict>, series: string): boolean | undefined {
  return verdict.series.find((s) => s.series === series)?.flat;
}

describe('soakVerdict', () => {
  it('passes steady series and splits the samples after the warmup into thirds', () => {
    const verdict = soakVerdict(samples(), WHOLE_RUN, 5);
    expect(verdict.flat).toBe(true);
    // t = 5..29: 25 samples, thirds of 8.
    expect(verdict.samples_per_third).toBe(8);
    expect(verdict.series.map((s) => s.change)).toEqual([0, 0, 0, 0]);
  });

  it('fails a heap that grows 1% a sample (about 20% between the thirds) and reports the change', () => {
    const verdict = soakVerdict(
      samples((i) => ({ heap_used_mb: 100 * 1.01 ** i })),
      WHOLE_RUN,
      5,
    );
    expect(flatOf(verdict, 'heap_used_mb')).toBe(false);
    expect(flatOf(verdict, 'rss_mb')).toBe(true);
    expect(verdict.flat).toBe(false);
    const heap = verdict.series.find((s) => s.series === 'heap_used_mb');
    // Medians at t = 8.5 and t = 25.5 (of 5..12 and 22..29): 1.01^17 - 1.
    expect(heap?.change).toBeCloseTo(1.01 ** 17 - 1, 3);
  });

  it('passes memory that grows by 9% or drops by any amount, and fails growth of 11%', () => {
    const moved = (factor: number) =>
      soakVerdict(
        samples((i) => ({ rss_mb: i >= 20 ? 200 * factor : 200 })),
        WHOLE_RUN,
        5,
      );
    expect(flatOf(moved(1.09), 'rss_mb')).toBe(true);
    expect(flatOf(moved(1.11), 'rss_mb')).toBe(false);
    expect(flatOf(moved(0.5), 'rss_mb')).toBe(true);
  });

  it('leaves out the warmup and what falls outside the run', () => {
    const noisyEdges = samples((i) => (i < 5 || i > 25 ? { heap_used_mb: 900, fds: 90, eld_p99_ms: 400 } : {}));
    expect(soakVerdict(noisyEdges, { startS: 0, endS: 25 }, 5).flat).toBe(true);
    expect(soakVerdict(noisyEdges, WHOLE_RUN, 5).flat).toBe(false);
  });

  it('takes fds wandering by a few as bounded, and fails a new high beyond 10% late in the run', () => {
    const peak = (fds: number) =>
      soakVerdict(
        samples((i) => ({ fds: i === 27 ? fds : 40 })),
        WHOLE_RUN,
        5,
      );
    expect(flatOf(peak(44), 'fds')).toBe(true);
    expect(flatOf(peak(45), 'fds')).toBe(false);
  });

  it('takes an event-loop delay p99 moving by under 1 ms as flat, by more as growth', () => {
    const by = (ms: number) =>
      soakVerdict(
        samples((i) => ({ eld_p99_ms: i >= 20 ? 2 + ms : 2 })),
        WHOLE_RUN,
        5,
      );
    expect(flatOf(by(0.9), 'eld_p99_ms')).toBe(true);
    expect(flatOf(by(1.5), 'eld_p99_ms')).toBe(false);
  });

  it('refuses to judge fewer than three samples after the warmup', () => {
    expect(() => soakVerdict(samples(), WHOLE_RUN, 28)).toThrow(/too few/);
  });
});

describe('curveRows', () => {
  it('gives one row per bucket: medians of memory, lowest heap, highest fds and event-loop delay p99', () => {
    const rows = curveRows(
      samples((i) => ({ rss_mb: 200 + i, heap_used_mb: i === 13 ? 80 : 100, fds: 40 + (i % 10), eld_p99_ms: i })),
      10,
    );
    expect(rows).toHaveLength(3);
    expect(rows[1]).toEqual({
      from_s: 10,
      rss_mb: '214.5',
      heap_used_mb: '100.0',
      heap_min_mb: '80.0',
      fds_max: 49,
      eld_p99_ms_max: '19.0',
      samples: 10,
    });
  });
});
