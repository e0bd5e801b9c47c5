/**
 * The terminal summary of a run: one row per group with its request counts and the latencies people
 * look at first, then the thresholds with pass/fail. Plain text, aligned columns, no colours (it goes to
 * files and CI logs as often as to terminals).
 */
import type { GroupSummary, MetricName, RunCost, ThresholdResult } from '../metrics/run-summary.js';

interface Column {
  readonly title: string;
  readonly value: (group: GroupSummary) => string;
  /** Shown only when some group has a value (queue_time needs the server's time_info). */
  readonly optional?: boolean;
}

const COLUMNS: readonly Column[] = [
  { title: 'group', value: (g) => g.key },
  { title: 'ok', value: (g) => String(g.requests.ok) },
  { title: 'failed', value: (g) => String(g.requests.failed) },
  { title: '429', value: (g) => String(throttledAnswers(g)) },
  { title: 'retried', value: (g) => retriedAttempts(g), optional: true },
  { title: 'dropped', value: (g) => String(g.requests.dropped) },
  { title: 'ttft p50', value: (g) => stat(g, 'ttft_ms', 'p50') },
  { title: 'ttft p99', value: (g) => stat(g, 'ttft_ms', 'p99') },
  // Reasoning groups only: first answer token (after the reasoning) and reasoning tokens per request.
  { title: 'ttfo p50', value: (g) => (reasons(g) ? stat(g, 'ttfo_ms', 'p50') : '-'), optional: true },
  {
    title: 'reason tok',
    value: (g) => (reasons(g) ? fixed(g.metrics.reasoning_tokens?.mean ?? Number.NaN) : '-'),
    optional: true,
  },
  { title: 'itl p50', value: (g) => stat(g, 'itl_ms', 'p50') },
  { title: 'itl p99', value: (g) => stat(g, 'itl_ms', 'p99') },
  { title: 'e2e p50', value: (g) => stat(g, 'e2e_ms', 'p50') },
  { title: 'out tok/s', value: (g) => fixed(g.throughput.output_tokens_per_s) },
  // api: embeddings only: inputs embedded and their tokens per second.
  { title: 'inputs/s', value: (g) => fixedOrDash(g.throughput.inputs_per_s), optional: true },
  { title: 'in tok/s', value: (g) => fixedOrDash(g.throughput.input_tokens_per_s), optional: true },
  { title: 'queue p50', value: (g) => stat(g, 'queue_time_ms', 'p50'), optional: true },
  { title: 'cost', value: (g) => (g.cost ? formatUsd(g.cost.usd) : '-'), optional: true },
  { title: '$/M out', value: (g) => usdOrDash(g.cost?.per_million_output_tokens), optional: true },
  // Answer checks' pass rates (args = tool_arguments, json = json_schema), when answers were checked.
  { title: 'checks', value: (g) => checksPassed(g), optional: true },
];

/** The table (ms for latencies), one line per group, ending with a newline. */
export function formatSummaryTable(groups: readonly GroupSummary[]): string {
  const columns = COLUMNS.filter((column) => !column.optional || groups.some((group) => column.value(group) !== '-'));
  const rows = [
    columns.map((column) => column.title),
    ...groups.map((group) => columns.map((column) => column.value(group))),
  ];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n(latencies in ms)\n`;
}

/** The run's cost line: "cost: $0.0004 (prices from the profile)". */
export function formatRunCost(cost: RunCost): string {
  const from =
    cost.source === 'mixed'
      ? "the profile and the target's catalog"
      : cost.source === 'profile'
        ? "the profile's pricing"
        : "the target's catalog";
  const unpriced = cost.unpriced_models.length > 0 ? `; no price for ${cost.unpriced_models.join(', ')}` : '';
  return `cost: ${formatUsd(cost.usd)} (prices from ${from}${unpriced})\n`;
}

/** "$0.0004", "$0.0181", "$12.35": cents from a dollar up, three significant digits below (never "1e-7"). */
export function formatUsd(usd: number): string {
  if (!(usd > 0)) return '$0';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  const decimals = Math.min(20, 2 - Math.floor(Math.log10(usd)));
  return `$${usd.toFixed(decimals).replace(/\.?0+$/, '')}`;
}

function usdOrDash(usd: number | null | undefined): string {
  return usd === null || usd === undefined ? '-' : formatUsd(usd);
}

/** Threshold verdicts, one per line ("PASS ttft_ms.p99 < 800 [group]: 412.3"). */
export function formatThresholds(results: readonly ThresholdResult[]): string {
  return results
    .map(
      (result) =>
        `${result.passed ? 'PASS' : 'FAIL'}  ${result.expression}  [${result.group}]  actual ${result.actual === null ? '-' : fixed(result.actual)}\n`,
    )
    .join('');
}

/** Every 429 the server answered: the requests that ended throttled and the attempts a retry recovered from. */
function throttledAnswers(group: GroupSummary): number {
  return (group.requests.errors['http_429'] ?? 0) + (group.requests.retried?.['http_429'] ?? 0);
}

/** Failed attempts that were retried, "-" when none (the column is then left out). */
function retriedAttempts(group: GroupSummary): string {
  const total = Object.values(group.requests.retried ?? {}).reduce((sum, n) => sum + n, 0);
  return total > 0 ? String(total) : '-';
}

/** `args 100% json 97.5%`: the pass rate of each answer check the group ran; '-' for none. */
function checksPassed(group: GroupSummary): string {
  const parts: string[] = [];
  const { tool_arguments: args, json_schema: json } = group.checks ?? {};
  if (args !== undefined) parts.push(`args ${percent(args.pass_rate)}`);
  if (json !== undefined) parts.push(`json ${percent(json.pass_rate)}`);
  return parts.length > 0 ? parts.join(' ') : '-';
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** A group whose answers carried reasoning tokens (a reasoning model; ttfo then differs from ttft). */
function reasons(group: GroupSummary): boolean {
  return (group.metrics.reasoning_tokens?.max ?? 0) > 0;
}

function stat(group: GroupSummary, metric: MetricName, key: 'p50' | 'p99'): string {
  const stats = group.metrics[metric];
  return stats && stats.count > 0 ? fixed(stats[key]) : '-';
}

function fixedOrDash(value: number | undefined): string {
  return value === undefined ? '-' : fixed(value);
}

function fixed(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(1);
}
