/**
 * `report <run-dir> --dialect <tool>`: one tool's reading of a run (summary.json `groups[].dialects`,
 * aggregate/dialects/), as aligned plain text: per group, the tool's numbers under the tool's own names,
 * beside inferbench's own metric of the same concept (DIALECT_ROW_INFO: rows are concepts, not names), each
 * row with its unit, and the tool's throughputs. Runs recorded before
 * dialects were computed, and merged runs, have none: that is said, not guessed (their folders keep no
 * per-request first-event or last-text-chunk times).
 */
import { InferbenchError } from '../errors.js';
import { DIALECT_ROW_INFO, DIALECT_ROWS, type DialectName } from '../metrics/dialect-summary.js';
import type { DialectSummary, GroupSummary, RunSummary } from '../metrics/run-summary.js';

/** Throws BAD_RESULTS when no group of the run has dialects (a run from before them, or a merged run). */
export function formatDialectTables(summary: RunSummary, dialect: DialectName): string {
  if (!summary.groups.some((group) => group.dialects !== undefined)) {
    const why =
      summary.merged_from !== undefined
        ? 'it is a merged run: merging adds histograms, but the dialects need every request, which shards do not keep'
        : 'it was recorded before inferbench computed dialects, and its folder keeps no per-request first-event or last-text-chunk times (requests.csv has TTFT, E2E and tokens only), which every dialect needs';
    throw new InferbenchError('BAD_RESULTS', `run ${summary.run_id} has no ${dialect} dialect: ${why}`, {
      hint: 'run the profile again with this version of inferbench (its summary.json gets groups[].dialects)',
    });
  }
  const parts: string[] = [];
  for (const group of summary.groups) {
    const reading = group.dialects?.[dialect];
    if (reading === undefined) {
      parts.push(`group ${group.key}: no ok request carried generated text\n`);
      continue;
    }
    parts.push(formatGroup(group, reading));
  }
  return parts.join('\n');
}

function formatGroup(group: GroupSummary, reading: DialectSummary): string {
  const header = `group ${group.key} as ${reading.tool} reports it (${reading.source})`;
  const totals =
    `${reading.requests} requests, ${reading.output_tokens} output tokens in ${fixed(reading.duration_s)} s: ` +
    `${fixed(reading.output_tokens_per_s)} output tok/s, ${fixed(reading.requests_per_s)} req/s ` +
    `(inferbench: ${fixed(group.throughput.output_tokens_per_s)} output tok/s, ${fixed(group.throughput.requests_per_s)} req/s)`;
  const rows: string[][] = [
    [
      'row',
      `${reading.tool} name`,
      'unit',
      'count',
      'mean',
      'p50',
      'p90',
      'p95',
      'p99',
      'inferbench p50',
      'inferbench p99',
    ],
  ];
  for (const row of DIALECT_ROWS) {
    const stats = reading.metrics[row];
    if (stats === undefined) continue;
    const info = DIALECT_ROW_INFO[row];
    const ownStats = info.own === null ? undefined : group.metrics[info.own];
    rows.push([
      row,
      stats.name,
      info.unit,
      String(stats.count),
      fixed(stats.mean),
      fixed(stats.p50),
      fixed(stats.p90),
      fixed(stats.p95),
      fixed(stats.p99),
      ownStats === undefined ? '-' : fixed(ownStats.p50),
      ownStats === undefined ? '-' : fixed(ownStats.p99),
    ]);
  }
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((r) => (r[i] as string).length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd(),
  );
  const sampled =
    reading.sampled === true
      ? `sampled: the percentiles are of a uniform sample of ${reading.sampled_requests} requests and ${reading.sampled_gaps} chunk gaps (docs/dialects.md, Limits)\n`
      : '';
  return `${header}\n${totals}\n${lines.join('\n')}\n${sampled}`;
}

function fixed(value: number): string {
  return Number.isFinite(value) ? value.toFixed(3) : '-';
}
