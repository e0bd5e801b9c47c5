/**
 * The dialect tables line rows up by concept, not by name (report/dialect-table.ts, report/html/dialects-section.ts):
 * AIPerf's "Inter Token Latency" is per request (latency - TTFT) / (tokens - 1), so it sits in the tpot_ms row
 * beside inferbench's tpot_ms, and its ICL (the pooled chunk gaps) beside inferbench's itl_ms; units are
 * labelled per row (llmperf's per-request throughput is tok/s, not ms).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupDialects } from '../../../src/aggregate/dialects/dialect-registry.js';
import { DialectFacts } from '../../../src/aggregate/dialects/request-facts.js';
import type { RunSummary } from '../../../src/metrics/run-summary.js';
import { formatDialectTables } from '../../../src/report/dialect-table.js';
import { dialectsSection } from '../../../src/report/html/dialects-section.js';
import { fmt } from '../../../src/report/html/document-model.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-dialect-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function summaryWithDialects(): RunSummary {
  const { summary } = makeRunDir(join(dir, 'run'), { models: ['m'], tiers: [null], requestsPerGroup: 20 });
  const facts = new DialectFacts();
  // Two requests (µs from their start): role 100 ms, text 120 150 200 | role 50, text 60 90; finish with the last text.
  for (const [text, tokens] of [
    [[120_000, 150_000, 200_000], 4],
    [[60_000, 90_000], 3],
  ] as const) {
    facts.push({
      firstEventUs: text[0] - 20_000,
      firstTextUs: text[0],
      lastTextUs: text[text.length - 1] as number,
      endUs: (text[text.length - 1] as number) + 1000,
      outputTokens: tokens,
      events: text.length + 2,
      textChunks: text.length,
      choiceEvents: text.length + 2,
      lastChoiceUs: (text[text.length - 1] as number) + 1000,
    });
    for (let i = 1; i < text.length; i++) facts.pushGap((text[i] as number) - (text[i - 1] as number));
  }
  facts.firstStartUs = 0;
  facts.lastEndUs = 201_000;
  facts.lastTextAtUs = 200_000;
  const group = summary.groups[0]!;
  return { ...summary, groups: [{ ...group, dialects: groupDialects(facts)! }] };
}

describe('dialect rows by concept', () => {
  const summary = summaryWithDialects();
  const group = summary.groups[0]!;
  const own = group.metrics;

  it("report --dialect aiperf: AIPerf's ITL beside inferbench tpot_ms, its ICL beside itl_ms, units per row", () => {
    const text = formatDialectTables(summary, 'aiperf');
    const line = (name: string): string => text.split('\n').find((l) => l.includes(name)) ?? '';
    const itl = line('Inter Token Latency (ITL)');
    expect(itl).toMatch(/^tpot_ms\s/);
    expect(itl).toMatch(new RegExp(`\\s${own.tpot_ms!.p50.toFixed(3)}\\s+${own.tpot_ms!.p99.toFixed(3)}$`));
    const icl = line('Inter Chunk Latency (ICL)');
    expect(icl).toMatch(/^itl_ms\s/);
    expect(icl).toMatch(new RegExp(`\\s${own.itl_ms!.p50.toFixed(3)}\\s+${own.itl_ms!.p99.toFixed(3)}$`));
    expect(text).not.toContain('(times in ms)');
    const throughput = formatDialectTables(summary, 'llmperf')
      .split('\n')
      .find((l) => l.includes('request_output_throughput_token_per_s'));
    expect(throughput).toMatch(/\stok\/s\s/);
    expect(line('Time to First Token')).toMatch(/\sms\s/);
  });

  it("report.html: the same concept in one row, each row's unit in its concept cell", () => {
    const section = dialectsSection(summary.groups)!;
    const table = section.blocks.find((b) => b.kind === 'table')!;
    if (table.kind !== 'table') throw new Error('no table');
    const aiperf = table.columns.indexOf('AIPerf');
    const tpotRow = table.rows.find((r) => String(r[1]).startsWith('tpot_ms'))!;
    expect(tpotRow[2]).toBe(`tpot_ms: ${fmt(own.tpot_ms!.mean, 2)} / ${fmt(own.tpot_ms!.p99, 2)}`);
    expect(String(tpotRow[aiperf])).toMatch(/^Inter Token Latency \(ITL\): /);
    const itlRow = table.rows.find((r) => String(r[1]).startsWith('itl_ms'))!;
    expect(String(itlRow[aiperf])).toMatch(/^Inter Chunk Latency \(ICL\): /);
    const perRequest = table.rows.find((r) => String(r[1]).startsWith('request_output_tokens_per_s'))!;
    expect(perRequest[1]).toContain('tok/s');
    expect(tpotRow[1]).toContain('ms');
  });
});
