/**
 * The harness's own health during a run (summary.json `harness`): event-loop delay, process CPU use and
 * schedule lag. A client that is itself overloaded delays sends and reads, so its numbers are not the
 * server's: this monitor says so instead of letting such a run pass for a measurement.
 */
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { HarnessHealth } from '../metrics/run-summary.js';

/** Cumulative CPU time of the process in microseconds (cli/ passes process.cpuUsage). */
export type CpuProbe = () => { readonly user: number; readonly system: number };

/** Above these the client may have distorted the numbers (DESIGN.md, harness health). */
export const HARNESS_LIMITS = {
  eventLoopDelayP99Ms: 10,
  scheduleLagP99Ms: 10,
  cpuUtilization: 0.9,
} as const;

/** Sampling interval of the event-loop delay monitor; its samples include this interval, so it is subtracted. */
const RESOLUTION_MS = 10;

export interface HarnessMonitor {
  /** One measured request's schedule lag (actual send - intended start), microseconds. */
  recordScheduleLagUs(lagUs: number): void;
  /** Stops sampling and returns the health report. */
  finish(): HarnessHealth;
}

export function startHarnessMonitor(cpuProbe: CpuProbe | null): HarnessMonitor {
  const loopDelay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loopDelay.enable();
  const lag = createHistogram();
  const startedAtMs = performance.now();
  const cpuAtStart = cpuProbe?.() ?? null;
  let finished: HarnessHealth | null = null;

  return {
    recordScheduleLagUs(lagUs) {
      // RecordableHistogram takes integers >= 1; a lag of 0 or a clock tie still counts as "no lag".
      lag.record(Math.max(1, Math.round(lagUs)));
    },
    finish() {
      if (finished) return finished;
      loopDelay.disable();
      const wallUs = (performance.now() - startedAtMs) * 1000;
      const cpuNow = cpuProbe?.() ?? null;
      const cpuUtilization =
        cpuAtStart && cpuNow && wallUs > 0
          ? round3((cpuNow.user - cpuAtStart.user + cpuNow.system - cpuAtStart.system) / wallUs)
          : 0;
      const delayMs = (ns: number): number => (loopDelay.count > 0 ? round3(Math.max(0, ns / 1e6 - RESOLUTION_MS)) : 0);
      const lagMs = (us: number): number => (lag.count > 0 ? round3(us / 1000) : 0);
      const health: HarnessHealth = {
        event_loop_delay_ms: {
          p50: delayMs(loopDelay.percentile(50)),
          p99: delayMs(loopDelay.percentile(99)),
          max: delayMs(loopDelay.max),
        },
        cpu_utilization: cpuUtilization,
        schedule_lag_ms: { p50: lagMs(lag.percentile(50)), p99: lagMs(lag.percentile(99)), max: lagMs(lag.max) },
        warnings: [],
        client_bottleneck: false,
      };
      health.warnings = harnessWarnings(health);
      health.client_bottleneck = health.warnings.length > 0;
      finished = health;
      return health;
    },
  };
}

/** The start of the warning a schedule lag over its limit gets (capacity steps replace it: step-health.ts). */
export const SCHEDULE_LAG_WARNING = 'schedule lag p99 was';

/** What the figures say of the client, one warning per figure over its limit (none: it was not the bottleneck). */
export function harnessWarnings(
  health: Pick<HarnessHealth, 'event_loop_delay_ms' | 'schedule_lag_ms' | 'cpu_utilization'>,
): string[] {
  const warnings: string[] = [];
  if (health.event_loop_delay_ms.p99 > HARNESS_LIMITS.eventLoopDelayP99Ms)
    warnings.push(
      `event-loop delay p99 was ${health.event_loop_delay_ms.p99} ms (> ${HARNESS_LIMITS.eventLoopDelayP99Ms} ms): the client was busy and latencies may include its own delay`,
    );
  if (health.schedule_lag_ms.p99 > HARNESS_LIMITS.scheduleLagP99Ms)
    warnings.push(scheduleLagWarning(health.schedule_lag_ms.p99));
  if (health.cpu_utilization > HARNESS_LIMITS.cpuUtilization)
    warnings.push(
      `the harness used ${Math.round(health.cpu_utilization * 100)}% of a CPU core: it may have been the bottleneck`,
    );
  return warnings;
}

export function scheduleLagWarning(p99Ms: number): string {
  return `${SCHEDULE_LAG_WARNING} ${p99Ms} ms (> ${HARNESS_LIMITS.scheduleLagP99Ms} ms): requests left later than planned`;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
