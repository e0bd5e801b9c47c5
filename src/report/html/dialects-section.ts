/**
 * The report's "In other tools' terms" section: per group, its TTFT, ITL, TPOT, E2E and output throughput
 * as inferbench, vLLM bench serve, AIPerf, GuideLLM and llmperf define them, side by side (summary.json
 * `groups[].dialects`, aggregate/dialects/; docs/dialects.md "Why tools disagree"). Each cell is the tool's
 * mean / p99 under the tool's own name. Absent for runs without dialects (from before them, or merged).
 */
import { DIALECT_NAMES, DIALECT_ROW_INFO, DIALECT_ROWS } from '../../metrics/dialect-summary.js';
import type { DialectStats, GroupSummary } from '../../metrics/run-summary.js';
import type { Cell, Section } from './document-model.js';
import { fmt } from './document-model.js';

const TOOL_TITLES = { vllm: 'vLLM bench serve', aiperf: 'AIPerf', guidellm: 'GuideLLM', llmperf: 'llmperf' } as const;

const COLUMNS = ['group', 'concept', 'inferbench', ...DIALECT_NAMES.map((name) => TOOL_TITLES[name])];

function statsCell(name: string, stats: Pick<DialectStats, 'mean' | 'p99'>): Cell {
  return `${name}: ${fmt(stats.mean, 2)} / ${fmt(stats.p99, 2)}`;
}

/** The section, or null when no group has dialects. */
export function dialectsSection(groups: readonly GroupSummary[]): Section | null {
  const rows: Cell[][] = [];
  const sampled: string[] = [];
  for (const group of groups) {
    const dialects = group.dialects;
    if (dialects === undefined) continue;
    const reading = DIALECT_NAMES.map((name) => dialects[name]).find((r) => r?.sampled === true);
    if (reading !== undefined)
      sampled.push(
        `${group.key}: ${reading.sampled_requests} of ${reading.requests} requests, ${reading.sampled_gaps} chunk gaps`,
      );
    for (const row of DIALECT_ROWS) {
      if (!DIALECT_NAMES.some((name) => dialects[name]?.metrics[row] !== undefined)) continue;
      const { own, unit } = DIALECT_ROW_INFO[row];
      const ownStats = own === null ? undefined : group.metrics[own];
      rows.push([
        group.key,
        `${row} (${unit})`,
        own === null || ownStats === undefined ? '-' : statsCell(own, ownStats),
        ...DIALECT_NAMES.map((name): Cell => {
          const stats = dialects[name]?.metrics[row];
          return stats === undefined ? '-' : statsCell(stats.name, stats);
        }),
      ]);
    }
    rows.push([
      group.key,
      'output_tokens_per_s (tok/s)',
      fmt(group.throughput.output_tokens_per_s, 1),
      ...DIALECT_NAMES.map((name): Cell => {
        const reading = dialects[name];
        return reading === undefined ? '-' : fmt(reading.output_tokens_per_s, 1);
      }),
    ]);
  }
  if (rows.length === 0) return null;
  return {
    id: 'dialects',
    title: "In other tools' terms",
    blocks: [
      {
        kind: 'paragraph',
        tone: 'muted',
        text: "The same requests measured as each tool defines its metrics (name: mean / p99, in the row's unit; docs/dialects.md, 'Why tools disagree'). A row is one concept, whatever each tool calls it. vLLM's TTFT stamps the first SSE event (a role-only chunk counts) and its ITL has one sample per event; AIPerf's ITL is (latency - TTFT) / (tokens - 1) per request (the tpot_ms row), its chunk gaps are ICL (the itl_ms row); GuideLLM's ITL is per request too, its TPOT includes the first token's wait, both weighted by tokens; llmperf's ITL is the time to the last chunk over the chunks, TTFT included (tpot_with_ttft_ms). Sampled readings (a long run) say so below the table. Token counts are inferbench's recorded ones for every tool. `inferbench report <run> --dialect <tool>` prints one tool's full table.",
      },
      { kind: 'table', columns: COLUMNS, rows, numericFrom: 2 },
      ...(sampled.length === 0
        ? []
        : [
            {
              kind: 'paragraph' as const,
              tone: 'muted' as const,
              text: `Sampled (a run past the exact tables' caps; totals and throughputs are of every request, the percentiles of a uniform sample): ${sampled.join('; ')}.`,
            },
          ]),
    ],
  };
}
