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

/** `health` with the tested requests' schedule lag in place of the whole step's (null: kept as measured). */
export function stepHealth(health: HarnessHealth, testedLagMs: Spread | null): HarnessHealth {
  if (testedLagMs === null) return health;
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
