/**
 * A capacity step is judged healthy or spoiled by the schedule lag of the requests its tests read, not of
 * the ramp block's first sends (fresh threads and connections, late by design and read by no test): the
 * step monitor keeps the lag of the tested blocks' records, and stepHealth puts it in place of the whole
 * step's, recomputing the warning and the verdict; the event loop and the CPU still count over the step.
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord } from '../../../../src/client/request-record.js';
import type { HarnessHealth } from '../../../../src/metrics/run-summary.js';
import { createRecordedValues } from '../../../../src/metrics/request-values.js';
import { stepHealth } from '../../../../src/runner/capacity/step-health.js';
import { StepMonitor } from '../../../../src/runner/capacity/step-monitor.js';

const START_US = 5_000_000;

function ended(monitor: StepMonitor, id: number, endMs: number, lagMs: number): void {
  const record = createRequestRecord(id, 0, START_US + endMs * 1000 - 100_000);
  record.endUs = START_US + endMs * 1000;
  record.status = 200;
  const values = createRecordedValues();
  values.schedule_lag_us = lagMs * 1000;
  monitor.record(record, values);
}

function monitorWithRamp(rampBlocks: number): StepMonitor {
  const monitor = new StepMonitor({
    objectives: [{ key: 'error_rate', metric: 'error_rate', allowed: 0.1, limit: 0.1 }],
    blockMs: 1000,
    alpha: 0.05,
    beta: 0.05,
    indifference: 0.5,
    load: 20,
    mode: 'rate',
    rampBlocks,
  });
  monitor.start(START_US);
  return monitor;
}

describe("a capacity step's schedule lag", () => {
  it('is that of the requests in the blocks its tests read, the ramp left out', () => {
    const monitor = monitorWithRamp(2);
    // The ramp's two blocks: the first sends 59, 27 and 11 ms late (as measured with 2 worker threads).
    ended(monitor, 1, 200, 59);
    ended(monitor, 2, 700, 27);
    ended(monitor, 3, 1500, 11);
    // The tested blocks: about a millisecond.
    for (let i = 0; i < 40; i++) ended(monitor, 10 + i, 2000 + i * 50, 1 + (i % 3) * 0.1);
    const lag = monitor.testedScheduleLagMs();
    expect(lag?.max).toBeCloseTo(1.2, 1);
    expect(lag?.p99).toBeLessThan(1.3);
    expect(lag?.p50).toBeGreaterThanOrEqual(1);
    // Nothing after the ramp: no tested lag to judge by.
    const early = monitorWithRamp(2);
    ended(early, 1, 300, 40);
    expect(early.testedScheduleLagMs()).toBeNull();
  });
});

describe('stepHealth', () => {
  const whole: HarnessHealth = {
    event_loop_delay_ms: { p50: 0.2, p99: 3, max: 12 },
    cpu_utilization: 0.4,
    schedule_lag_ms: { p50: 1.1, p99: 59.2, max: 59.2 },
    warnings: ['worker 2/2: schedule lag p99 was 59.2 ms (> 10 ms): requests left later than planned'],
    client_bottleneck: true,
  };

  it('is healthy when only the ramp was late', () => {
    const health = stepHealth(whole, { p50: 1.1, p99: 1.4, max: 1.5 });
    expect(health.client_bottleneck).toBe(false);
    expect(health.warnings).toEqual([]);
    expect(health.schedule_lag_ms).toEqual({ p50: 1.1, p99: 1.4, max: 1.5 });
    expect(health.event_loop_delay_ms).toEqual(whole.event_loop_delay_ms);
  });

  it('is spoiled when the tested requests were late, or the event loop or the CPU was busy over the step', () => {
    const late = stepHealth(whole, { p50: 4, p99: 14, max: 20 });
    expect(late.client_bottleneck).toBe(true);
    expect(late.warnings).toEqual([
      'schedule lag p99 was 14 ms (> 10 ms): requests left later than planned (the requests its tests read)',
    ]);
    const busyLoop = stepHealth(
      {
        ...whole,
        event_loop_delay_ms: { p50: 1, p99: 25, max: 40 },
        warnings: [
          'event-loop delay p99 was 25 ms (> 10 ms): the client was busy and latencies may include its own delay',
          ...whole.warnings,
        ],
      },
      { p50: 1, p99: 2, max: 2 },
    );
    expect(busyLoop.client_bottleneck).toBe(true);
    expect(busyLoop.warnings).toEqual([
      'event-loop delay p99 was 25 ms (> 10 ms): the client was busy and latencies may include its own delay',
    ]);
    expect(stepHealth({ ...whole, cpu_utilization: 0.95 }, { p50: 1, p99: 2, max: 2 }).client_bottleneck).toBe(true);
  });

  it('keeps the whole step as measured when no tested request carried a lag (a closed loop)', () => {
    expect(stepHealth(whole, null)).toBe(whole);
  });

  it('keeps a step the run found healthy as it is: only a lag warning is judged again', () => {
    const healthy: HarnessHealth = {
      ...whole,
      schedule_lag_ms: { p50: 1, p99: 2, max: 3 },
      warnings: [],
      client_bottleneck: false,
    };
    expect(stepHealth(healthy, { p50: 4, p99: 14, max: 20 })).toBe(healthy);
  });
});
