/**
 * The live dashboard's `end` event: the key numbers of a finished run, taken from its RunSummary (the
 * same numbers summary.json holds, so the page and the file never disagree): per group the request
 * counts, error rate, throughput and TTFT / ITL / E2E p50 and p99, and every threshold's verdict.
 */
import type { GroupSummary, MetricName, RunSummary } from '../../metrics/run-summary.js';

/** p50 and p99 of a latency metric, ms; null when the group has no value of it. */
export interface LivePercentiles {
  readonly p50: number;
  readonly p99: number;
}

export interface LiveEndGroup {
  readonly key: string;
  readonly ok: number;
  readonly failed: number;
  /** Final 429s (in summary.json's `requests.errors.http_429`), never counted as failed. */
  readonly throttled: number;
  readonly dropped: number;
  readonly errorRate: number;
  readonly requestsPerS: number;
  readonly outputTokensPerS: number;
  readonly ttftMs: LivePercentiles | null;
  readonly itlMs: LivePercentiles | null;
  readonly e2eMs: LivePercentiles | null;
}

export interface LiveEndThreshold {
  readonly expression: string;
  readonly group: string;
  readonly actual: number | null;
  readonly passed: boolean;
}

/** The finished run as the page shows it. */
export interface LiveEndSummary {
  readonly runId: string;
  readonly complete: boolean;
  /** Why it ended early (summary.json `stopped.reason`); null when it ran to its end. */
  readonly stopped: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly target: string;
  readonly groups: readonly LiveEndGroup[];
  readonly thresholds: readonly LiveEndThreshold[];
}

/** The `end` event's data: the summary, or null when the run ended without one (it failed to finish). */
export interface LiveEndMessage {
  readonly summary: LiveEndSummary | null;
}

/** The end message of a run. */
export function liveEndMessage(summary: RunSummary | null): LiveEndMessage {
  if (summary === null) return { summary: null };
  return {
    summary: {
      runId: summary.run_id,
      complete: summary.complete,
      stopped: summary.stopped?.reason ?? null,
      startedAt: summary.started_at,
      endedAt: summary.ended_at,
      target: summary.target.base_url,
      groups: summary.groups.map(endGroup),
      thresholds: summary.thresholds.map((t) => ({
        expression: t.expression,
        group: t.group,
        actual: t.actual,
        passed: t.passed,
      })),
    },
  };
}

function endGroup(group: GroupSummary): LiveEndGroup {
  return {
    key: group.key,
    ok: group.requests.ok,
    failed: group.requests.failed,
    throttled: group.requests.errors['http_429'] ?? 0,
    dropped: group.requests.dropped,
    errorRate: group.error_rate,
    requestsPerS: group.throughput.requests_per_s,
    outputTokensPerS: group.throughput.output_tokens_per_s,
    ttftMs: percentiles(group, 'ttft_ms'),
    itlMs: percentiles(group, 'itl_ms'),
    e2eMs: percentiles(group, 'e2e_ms'),
  };
}

function percentiles(group: GroupSummary, metric: MetricName): LivePercentiles | null {
  const stats = group.metrics[metric];
  return stats === undefined || stats.count === 0 ? null : { p50: stats.p50, p99: stats.p99 };
}
