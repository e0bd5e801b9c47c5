/**
 * A capacity step's harness health, judged over what its tests read. The run's monitor covers the whole
 * step, whose first block (and warmup) is read by no test: there the first sends of fresh worker threads
 * and connections leave late by design (measured: 6-59 ms against ~1 ms after), and with 20-40 sends a
 * thread the p99 is the worst of them, so nearly every `--workers` step was spoiled and run again. The
 * schedule lag that counts is that of the requests in the tested blocks (a late send is in their open-loop
 * latencies); the event loop's delay and the CPU stay over the whole step.
 */
import type { HarnessHealth } from '../../metrics/run-summary.js';
import { HARNESS_LIMITS, SCHEDULE_LAG_WARNING, scheduleLagWarning } from '../harness-monitor.js';

type Spread = HarnessHealth['schedule_lag_ms'];

/**
 * `health`, its schedule-lag warning judged again over the tested requests: dropped when they were on time,
 * kept (with their figure) when not. Only a warning is judged again: the run's monitor stays the one judge
 * of a step it found healthy (and a test's stub of it). null tested lag: kept as measured.
 */
export function stepHealth(health: HarnessHealth, testedLagMs: Spread | null): HarnessHealth {
  const lagWarned = health.warnings.some((warning) => warning.includes(SCHEDULE_LAG_WARNING));
  if (testedLagMs === null || !lagWarned) return health;
  const warnings = health.warnings.filter((warning) => !warning.includes(SCHEDULE_LAG_WARNING));
  const lagOver = testedLagMs.p99 > HARNESS_LIMITS.scheduleLagP99Ms;
  if (lagOver) warnings.push(`${scheduleLagWarning(testedLagMs.p99)} (the requests its tests read)`);
  return {
    ...health,
    schedule_lag_ms: testedLagMs,
    warnings,
    client_bottleneck:
      lagOver ||
      health.event_loop_delay_ms.p99 > HARNESS_LIMITS.eventLoopDelayP99Ms ||
      health.cpu_utilization > HARNESS_LIMITS.cpuUtilization,
  };
}
