/**
 * Several harnesses' health as one (the shards of `merge`, the workers of `run --workers`): the worst
 * of each figure (highest event-loop delay, schedule lag and CPU use), every warning named by whose it is,
 * and flagged a bottleneck when any of them was. A run is only as trustworthy as its busiest client.
 */
import type { HarnessHealth } from '../metrics/run-summary.js';

export interface LabelledHealth {
  /** Who measured it, e.g. a shard's run id or "worker 2/4": prefixed to its warnings. */
  readonly label: string;
  readonly health: HarnessHealth;
}

export function worstHealth(entries: readonly LabelledHealth[]): HarnessHealth {
  const healths = entries.map((entry) => entry.health);
  const worst = (pick: (h: HarnessHealth) => number): number => {
    const values = healths.map(pick).filter(Number.isFinite);
    return values.length > 0 ? Math.max(...values) : Number.NaN;
  };
  const spread = (pick: (h: HarnessHealth) => { p50: number; p99: number; max: number }) => ({
    p50: worst((h) => pick(h).p50),
    p99: worst((h) => pick(h).p99),
    max: worst((h) => pick(h).max),
  });
  return {
    event_loop_delay_ms: spread((h) => h.event_loop_delay_ms),
    cpu_utilization: worst((h) => h.cpu_utilization),
    schedule_lag_ms: spread((h) => h.schedule_lag_ms),
    warnings: entries.flatMap(({ label, health }) => health.warnings.map((warning) => `${label}: ${warning}`)),
    client_bottleneck: healths.some((h) => h.client_bottleneck),
  };
}
