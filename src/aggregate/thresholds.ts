/**
 * Thresholds evaluated at the end of a run (any failure: exit 99). A threshold names a group, or none:
 * then every group is checked and each gets its own result (each must pass). The value is a metric's
 * stat (`ttft_ms.p99`) or a group-level value (`error_rate`, `requests_per_s`, `output_tokens_per_s`,
 * `total_tokens_per_s`, `goodput_per_s`, `inputs_per_s`, `input_tokens_per_s` (embeddings),
 * `tool_arguments_pass_rate`, `json_schema_pass_rate`:
 * metrics/metric-registry.ts's group values). A value the run
 * does not have (no such metric, group or stat) fails the threshold with `actual: null`: a check that
 * cannot be made must not pass silently. Thresholds with abort_on_fail are also checked during the run, on
 * live numbers (live-thresholds.ts, early-stop.ts).
 */
import type { ThresholdSpec } from '../profile/resolved-profile.js';
import type { GroupValueName } from '../metrics/metric-registry.js';
import type { GroupSummary, MetricName, MetricStats, ThresholdResult } from '../metrics/run-summary.js';

/** What a group-level value is read from: a final GroupSummary, or a group's live rates (live-thresholds.ts). */
export type GroupRates = Pick<GroupSummary, 'error_rate' | 'throughput' | 'checks'>;
/** null: the group has no such value (a pass rate without any checked answer). */
type GroupValue = (group: GroupRates) => number | null;

/** How each group-level value of the registry is read (the compiler checks that none is missing or extra). */
export const GROUP_VALUES = {
  error_rate: (g) => g.error_rate,
  requests_per_s: (g) => g.throughput.requests_per_s,
  output_tokens_per_s: (g) => g.throughput.output_tokens_per_s,
  total_tokens_per_s: (g) => g.throughput.total_tokens_per_s,
  goodput_per_s: (g) => g.throughput.goodput_per_s,
  inputs_per_s: (g) => g.throughput.inputs_per_s ?? null,
  input_tokens_per_s: (g) => g.throughput.input_tokens_per_s ?? null,
  tool_arguments_pass_rate: (g) => g.checks?.tool_arguments?.pass_rate ?? null,
  json_schema_pass_rate: (g) => g.checks?.json_schema?.pass_rate ?? null,
} as const satisfies Record<GroupValueName, GroupValue>;

/** The value a threshold compares on one group, or null when the group does not have it. */
export function thresholdValue(spec: ThresholdSpec, group: GroupSummary): number | null {
  if (spec.stat === null) {
    const read = (GROUP_VALUES as Record<string, GroupValue | undefined>)[spec.metric];
    return read ? read(group) : null;
  }
  const stats = group.metrics[spec.metric as MetricName] as MetricStats | undefined;
  if (!stats || stats.count === 0) return null;
  const value = (stats as unknown as Record<string, number | undefined>)[spec.stat];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Whether `actual op limit` holds: the threshold passes. */
export function thresholdHolds(actual: number, op: ThresholdSpec['op'], limit: number): boolean {
  switch (op) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
  }
}

export function evaluateThresholds(specs: ThresholdSpec[], groups: GroupSummary[]): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  for (const spec of specs) {
    const targets = spec.group === null ? groups : groups.filter((g) => g.key === spec.group);
    if (targets.length === 0) {
      results.push({ expression: spec.expression, group: spec.group ?? '*', actual: null, passed: false });
      continue;
    }
    for (const group of targets) {
      const actual = thresholdValue(spec, group);
      results.push({
        expression: spec.expression,
        group: group.key,
        actual,
        passed: actual !== null && thresholdHolds(actual, spec.op, spec.value),
      });
    }
  }
  return results;
}
