/**
 * report.html's Server section as a document, from a fixture summary and time series with known server
 * values: the client's TTFT and the server's queue, KV-cache use, tokens and power charted per second on
 * the same seconds (one sync key), each value the time series' own (ratios as %); a table per scenario
 * phase with the concepts' stats and raw names and the energy per output token; the endpoints' scrape
 * health; and a run without server metrics has no such section and the same sections as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary, TimeSeriesPoint } from '../../../src/metrics/run-summary.js';
import type { ServerPhaseSummary } from '../../../src/metrics/server-summary.js';
import { buildReportDocument } from '../../../src/report/html/build-report-document.js';
import type { Block, ChartSpec, PageDocument } from '../../../src/report/html/document-model.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-server-section-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENDPOINT = 'http://vllm:8000/metrics';

const MEASURED: ServerPhaseSummary = {
  from_s: 2.859,
  to_s: 13.824,
  scrapes: 11,
  failures: 1,
  output_tokens: 10438,
  concepts: {
    running: {
      kind: 'gauge',
      last: 4,
      min: 2,
      max: 4,
      mean: 3.5,
      p99: 3.91,
      sources: ['vllm:num_requests_running'],
      endpoint: ENDPOINT,
    },
    kv_cache_usage: {
      kind: 'gauge',
      last: 0.93,
      min: 0.5,
      max: 0.97,
      mean: 0.8125,
      sources: ['vllm:kv_cache_usage_perc'],
      endpoint: ENDPOINT,
    },
    prompt_tokens_per_s: {
      kind: 'counter',
      delta: 20480,
      per_s: 2048,
      max_per_s: 4096,
      p99_per_s: 3900.5,
      sources: ['vllm:prompt_tokens_total'],
      endpoint: ENDPOINT,
    },
    prefix_cache_hit_ratio: {
      kind: 'ratio',
      value: 0.75,
      hits: 15360,
      queries: 20480,
      sources: ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
      endpoint: ENDPOINT,
    },
    server_ttft: {
      kind: 'histogram',
      count: 97,
      mean: 440.5,
      p50: 435.4,
      p90: 676.5,
      p99: 742.7,
      sources: ['vllm:time_to_first_token_seconds_bucket'],
      endpoint: ENDPOINT,
    },
  },
  extras: {
    'vllm:num_requests_swapped': {
      kind: 'gauge',
      last: 1,
      min: 0,
      max: 3,
      mean: 1.25,
      p99: 2.9,
      sources: ['vllm:num_requests_swapped'],
      endpoint: ENDPOINT,
    },
    'vllm:request_success_total': {
      kind: 'counter',
      delta: 120,
      per_s: 12,
      max_per_s: 15,
      p99_per_s: 14.73,
      sources: ['vllm:request_success_total'],
      endpoint: ENDPOINT,
    },
  },
  energy_per_output_token_j: 0.4375,
};

/** A one-group fixture run without the server's side. */
function fixture(name: string): { summary: RunSummary; points: TimeSeriesPoint[] } {
  const run = makeRunDir(join(root, name), { seed: 5, models: ['m'], tiers: [null] });
  return { summary: run.summary, points: run.timeSeries };
}

/** Known server values per second: running = s, waiting = 2s, KV use 0.5 + s/100, power 300 + s W. */
function withServer(
  summary: RunSummary,
  points: TimeSeriesPoint[],
): { summary: RunSummary; points: TimeSeriesPoint[] } {
  const serverPoints = points.map((p) => ({
    ...p,
    server: {
      server_running: p.second,
      server_running_max: p.second,
      server_waiting: p.second === 1 ? null : 2 * p.second,
      server_waiting_max: 2 * p.second,
      server_kv_cache_usage: 0.5 + p.second / 100,
      server_kv_cache_usage_max: 0.5 + p.second / 100,
      server_ttft_p50_ms: 100 + p.second,
      server_ttft_p90_ms: 150 + p.second,
      server_ttft_p99_ms: 200 + p.second,
      server_power_w: 300 + p.second,
      server_power_w_max: 300 + p.second,
    },
  }));
  const serverSummary: RunSummary = {
    ...summary,
    groups: summary.groups.map((g) => ({ ...g, server: { measured: MEASURED } })),
    server_metrics: [
      {
        url: ENDPOINT,
        preset: 'auto',
        engine: 'vllm',
        interval_ms: 1000,
        attempts: 15,
        scrapes_ok: 12,
        skipped: 1,
        failures: 3,
        failures_by_kind: { timeout: 2, connect: 1, http_status: 0, too_large: 0, parse: 0, not_prometheus: 0 },
        last_error: { kind: 'connect', message: 'connect ECONNREFUSED 10.0.0.1:8000', at_s: 7.5 },
      },
    ],
  };
  return { summary: serverSummary, points: serverPoints };
}

function blocksIn(doc: PageDocument, sectionId: string): Block[] {
  const out: Block[] = [];
  const walk = (blocks: readonly Block[]): void => {
    for (const b of blocks) {
      out.push(b);
      if (b.kind === 'grid') walk(b.blocks);
    }
  };
  walk(doc.sections.find((s) => s.id === sectionId)?.blocks ?? []);
  return out;
}

function chartsIn(doc: PageDocument, sectionId: string): ChartSpec[] {
  return blocksIn(doc, sectionId).flatMap((b) => (b.kind === 'chart' ? [b.chart] : []));
}

describe('the Server section of report.html', () => {
  const plain = fixture('plain');
  const { summary, points } = withServer(plain.summary, plain.points);
  const doc = buildReportDocument(summary, points);
  const seconds = [...new Set(points.map((p) => p.second))].sort((a, b) => a - b);

  it('comes after the client time series; a run without server metrics has the same sections as before', () => {
    const before = buildReportDocument(plain.summary, plain.points);
    expect(before.sections.some((s) => s.id === 'server')).toBe(false);
    expect(JSON.stringify(before)).not.toContain('server_metrics');
    const ids = doc.sections.map((s) => s.id);
    expect(ids).toEqual(before.sections.flatMap((s) => (s.id === 'timeseries' ? ['timeseries', 'server'] : [s.id])));
    // Nothing else changed: every other section is the one the run without the server's side has.
    expect(doc.sections.filter((s) => s.id !== 'server')).toEqual(before.sections);
  });

  it('charts TTFT, queue, KV use and power on the same seconds, with the time series values', () => {
    const charts = chartsIn(doc, 'server');
    expect(charts.map((c) => c.id)).toEqual(['srv-ttft', 'srv-queue', 'srv-kv', 'srv-power']);
    for (const chart of charts) {
      expect(chart.kind).toBe('time');
      expect(chart.x).toEqual(seconds);
      expect(chart.syncKey).toBe('server');
      for (const s of chart.series) expect(s.values).toHaveLength(seconds.length);
    }
    const series = (id: string, label: string) =>
      charts.find((c) => c.id === id)?.series.find((s) => s.label === label)?.values;
    const group = summary.groups[0]!.key;
    const at = (s: number) => points.find((p) => p.second === s);
    expect(series('srv-ttft', `${group} p50`)).toEqual(seconds.map((s) => at(s)?.ttft_p50_ms ?? null));
    expect(series('srv-ttft', `${group} p99`)).toEqual(seconds.map((s) => at(s)?.ttft_p99_ms ?? null));
    expect(series('srv-ttft', 'server p50')).toEqual(seconds.map((s) => 100 + s));
    expect(series('srv-ttft', 'server p99')).toEqual(seconds.map((s) => 200 + s));
    expect(series('srv-queue', 'running')).toEqual(seconds.map((s) => s));
    // A second without a value stays a gap, never a zero.
    expect(series('srv-queue', 'waiting')).toEqual(seconds.map((s) => (s === 1 ? null : 2 * s)));
    // 0..1 shown as %.
    expect(series('srv-kv', 'KV cache')).toEqual(seconds.map((s) => (0.5 + s / 100) * 100));
    expect(series('srv-power', 'power')).toEqual(seconds.map((s) => 300 + s));
    // No column, no chart or line: no token counters, no GPU use in this run.
    expect(charts.find((c) => c.id === 'srv-kv')?.series.map((s) => s.label)).toEqual(['KV cache']);
  });

  it("tables summary.json's server of each phase: stats per kind, raw names, J/token", () => {
    const blocks = blocksIn(doc, 'server');
    const table = blocks.find((b) => b.kind === 'table' && b.caption?.includes('measured'));
    expect(table?.kind === 'table' && table.columns).toEqual([
      'concept (unit)',
      'kind',
      'raw names',
      'mean',
      'max',
      'p50',
      'p99',
      'count / increase',
      'per s',
      'per s max',
      'per s p99',
      'ratio',
    ]);
    // A gauge's p99 over the phase's seconds where summary.json has it (kv_cache_usage: written before it
    // was, '–'); a counter's busiest second and the p99 of its per-second rates.
    expect(table?.kind === 'table' && table.rows).toEqual([
      ['running (requests)', 'gauge', 'vllm:num_requests_running', '3.5', '4', '–', '3.91', '–', '–', '–', '–', '–'],
      ['kv_cache_usage (%)', 'gauge', 'vllm:kv_cache_usage_perc', '81.25', '97', '–', '–', '–', '–', '–', '–', '–'],
      [
        'prompt_tokens_per_s (tokens)',
        'counter',
        'vllm:prompt_tokens_total',
        '–',
        '–',
        '–',
        '–',
        '20,480',
        '2,048',
        '4,096',
        '3,901',
        '–',
      ],
      [
        'prefix_cache_hit_ratio (%)',
        'ratio',
        'vllm:prefix_cache_hits_total, vllm:prefix_cache_queries_total',
        '–',
        '–',
        '–',
        '–',
        '15,360 / 20,480',
        '–',
        '–',
        '–',
        '75',
      ],
      [
        'server_ttft (ms)',
        'histogram',
        'vllm:time_to_first_token_seconds_bucket',
        '440.5',
        '–',
        '435.4',
        '742.7',
        '97',
        '–',
        '–',
        '–',
        '–',
      ],
    ]);
    // The `metrics:` extras, in a table of their own by raw name, as stored (their own units).
    const extras = blocks.find((b) => b.kind === 'table' && b.caption?.includes('extras'));
    expect(extras?.kind === 'table' && extras.caption).toBe(
      'metrics: extras over the measured window, in their own units (summary.json groups[].server.measured.extras)',
    );
    expect(extras?.kind === 'table' && extras.rows).toEqual([
      [
        'vllm:num_requests_swapped',
        'gauge',
        'vllm:num_requests_swapped',
        '1.25',
        '3',
        '–',
        '2.9',
        '–',
        '–',
        '–',
        '–',
        '–',
      ],
      [
        'vllm:request_success_total',
        'counter',
        'vllm:request_success_total',
        '–',
        '–',
        '–',
        '–',
        '120',
        '12',
        '15',
        '14.73',
        '–',
      ],
    ]);
    const kv = blocks.find((b) => b.kind === 'kv' && b.rows.some(([k]) => k === 'Energy per output token'));
    expect(kv?.kind === 'kv' && Object.fromEntries(kv.rows)).toEqual({
      Groups: summary.groups[0]!.key,
      Window: '2.859 s to 13.824 s of the run',
      'Scrapes in the window': { text: '11 ok, 1 failed', tone: 'warn' },
      'Output tokens': '10438',
      'Energy per output token': '0.438 J/token',
    });
    // One phase table: the run has no warmup block.
    expect(blocks.filter((b) => b.kind === 'table' && b.caption?.includes('warmup'))).toEqual([]);
  });

  it("shows each endpoint's scrapes: ok, failures by kind, the last error", () => {
    const table = blocksIn(doc, 'server').find((b) => b.kind === 'table' && b.columns[0] === 'endpoint');
    expect(table?.kind === 'table' && table.rows).toEqual([
      [
        ENDPOINT,
        'auto',
        'vllm',
        { text: 'connect at 7.5 s: connect ECONNREFUSED 10.0.0.1:8000', tone: 'warn' },
        '1000',
        '15',
        '12',
        '1',
        { text: '3 (2 timeout, 1 connect)', tone: 'bad' },
      ],
    ]);
  });

  it('a run whose every scrape failed: no charts, a warning, the endpoint table', () => {
    const failed: RunSummary = {
      ...summary,
      groups: summary.groups.map((g) => ({
        ...g,
        server: { measured: { ...MEASURED, scrapes: 0, failures: 11, concepts: {}, energy_per_output_token_j: null } },
      })),
    };
    const failedDoc = buildReportDocument(failed, plain.points);
    expect(chartsIn(failedDoc, 'server')).toEqual([]);
    const blocks = blocksIn(failedDoc, 'server');
    expect(blocks).toContainEqual(expect.objectContaining({ kind: 'paragraph', tone: 'warn' }));
    expect(blocks).toContainEqual({ kind: 'paragraph', text: 'No concept had a value in this window.', tone: 'muted' });
    expect(blocks.some((b) => b.kind === 'table' && b.columns[0] === 'endpoint')).toBe(true);
  });
});
