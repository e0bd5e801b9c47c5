/**
 * The run outputs on their own: requests.csv is on disk row by row before the run ends (a crash loses
 * nothing done), the terminal table shows queue_time only with time_info, and the progress line redraws
 * in place on a TTY at most 10x/s and prints a plain line every 5 s otherwise.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRequestRecord } from '../../../src/client/request-record.js';
import type { ResolvedGroup } from '../../../src/profile/resolved-profile.js';
import { openRequestsCsv, REQUEST_COLUMNS } from '../../../src/report/requests-csv.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import { formatSummaryTable } from '../../../src/report/summary-table.js';
import { createProgressLine } from '../../../src/report/progress-line.js';
import type { ProgressInput } from '../../../src/report/progress-line.js';
import type { GroupSummary, MetricStats } from '../../../src/metrics/run-summary.js';
import { makeRunId } from '../../../src/runner/run-id.js';
import { MemoryStream } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-outputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RFC 4180 CSV with a header line -> objects (a small parser written apart from csv-stringify). */
function parseCsv(text: string): Record<string, string>[] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  const [header, ...rows] = records;
  return rows.map((row) => Object.fromEntries((header ?? []).map((name, i) => [name, row[i] ?? ''])));
}

const GROUP: ResolvedGroup = { index: 0, scenario: 's', model: 'm, "quoted"', tier: 'flex', key: 's/m, "quoted"/flex' };

/** Usage sent, no check made: the values the runner hands over (runner/record-finisher.ts). */
function valuesOf(record: ReturnType<typeof finishedRecord>) {
  return fillRecordedValues(record, tokenCounts(record, null), createRecordedValues());
}

function finishedRecord(id: number) {
  const record = createRequestRecord(id, 0, 1_000_000 + id * 1000);
  record.sentUs = record.latencyStartUs + 250;
  record.headersUs = record.latencyStartUs + 5_000;
  record.firstTokenUs = record.latencyStartUs + 20_000;
  record.firstOutputUs = record.firstTokenUs;
  record.tokenChunkTimesUs = [record.firstTokenUs, record.firstTokenUs + 10_000, record.firstTokenUs + 30_000];
  record.endUs = record.firstTokenUs + 30_500;
  record.status = 200;
  record.usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
  record.timeInfo = { queue_time: 0.001, prompt_time: 0.0125, completion_time: 0.03, total_time: 0.0435, created: 1 };
  record.outputText = 'a b c';
  record.attempts = 1;
  return record;
}

describe('requests.csv', () => {
  it('is on disk row by row before it is closed, quoted correctly, with every metric in ms', async () => {
    const path = join(dir, 'requests.csv');
    const writer = await openRequestsCsv(path, 1_000_000);
    // Usage sent, no check made: the counts the runner hands over (runner/record-finisher.ts).
    writer.write(finishedRecord(0), GROUP, valuesOf(finishedRecord(0)));
    writer.write(finishedRecord(1), GROUP, valuesOf(finishedRecord(1)));
    // Not closed: the rows must already be in the file (what a crash would leave).
    const deadline = performance.now() + 5000;
    let text = '';
    while (performance.now() < deadline) {
      text = readFileSync(path, 'utf8');
      if (text.trim().split('\n').length >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const rows = parseCsv(text);
    expect(rows).toHaveLength(2);
    expect(Object.keys(rows[0]!)).toEqual([...REQUEST_COLUMNS]);
    expect(rows[0]!['group']).toBe('s/m, "quoted"/flex');
    expect(rows[1]!['start_ms']).toBe('1');
    expect(rows[0]!['schedule_lag_ms']).toBe('0.25');
    expect(rows[0]!['ttfb_ms']).toBe('5');
    expect(rows[0]!['ttft_ms']).toBe('20');
    expect(rows[0]!['e2e_ms']).toBe('50.5');
    expect(rows[0]!['itl_mean_ms']).toBe('15');
    expect(rows[0]!['itl_max_ms']).toBe('20');
    expect(rows[0]!['tpot_ms']).toBe('15.25');
    expect(rows[0]!['output_tokens']).toBe('3');
    expect(rows[0]!['tokens_estimated']).toBe('0');
    expect(rows[0]!['prompt_time_ms']).toBe('12.5');
    expect(rows[0]!['client_overhead_ms']).toBe('7');
    await writer.close();
    expect(writer.rows).toBe(2);
  });
});

function stats(p50: number, p99: number): MetricStats {
  return { count: 10, mean: p50, min: p50, max: p99, p50, p90: p99, p95: p99, p99, p999: p99 };
}

function group(withTimeInfo: boolean): GroupSummary {
  return {
    scenario: 's',
    model: 'm',
    tier: null,
    key: 's/m/-',
    requests: {
      ok: 10,
      failed: 2,
      dropped: 3,
      errors: { http_429: 4, http_5xx: 2 },
      attempts: 16,
      retried: {},
      error_samples: {},
    },
    error_rate: 2 / 12,
    throughput: { requests_per_s: 1, output_tokens_per_s: 123.4, total_tokens_per_s: 200, goodput_per_s: 1 },
    duration_ms: 10_000,
    metrics: {
      ttft_ms: stats(41.25, 250),
      itl_ms: stats(5, 9.5),
      e2e_ms: stats(512, 900),
      ...(withTimeInfo ? { queue_time_ms: stats(3, 4) } : {}),
    },
    histograms: {},
    tokens: { estimated_requests: 0, mismatched_requests: 0, max_mismatch: 0 },
    tiers_used: {},
  };
}

describe('terminal summary table', () => {
  it('shows counts and latencies per group, queue_time only when the server sent time_info', () => {
    const without = formatSummaryTable([group(false)]);
    const lines = without.split('\n');
    expect(lines[0]).toMatch(
      /^group\s+ok\s+failed\s+429\s+dropped\s+ttft p50\s+ttft p99\s+itl p50\s+itl p99\s+e2e p50\s+out tok\/s$/,
    );
    expect(lines[1]).toMatch(/^s\/m\/-\s+10\s+2\s+4\s+3\s+41\.3\s+250\s+5\.0\s+9\.5\s+512\s+123$/);
    expect(formatSummaryTable([group(true)]).split('\n')[0]).toMatch(/queue p50$/);
  });

  it('counts every 429 answer, those a retry recovered from too, and shows retried attempts when there were any', () => {
    const retried = group(false);
    retried.requests.retried = { http_429: 3, http_5xx: 1 };
    const lines = formatSummaryTable([retried]).split('\n');
    expect(lines[0]).toMatch(/^group\s+ok\s+failed\s+429\s+retried\s+dropped\s/);
    // 4 requests ended throttled + 3 throttled attempts that were retried; 4 retried attempts in all.
    expect(lines[1]).toMatch(/^s\/m\/-\s+10\s+2\s+7\s+4\s+3\s/);
  });
});

describe('progress line', () => {
  const input = (completed: number): ProgressInput => ({
    snapshot: {
      elapsedMs: 3000,
      started: completed + 2,
      completed,
      failed: 1,
      throttled: 0,
      dropped: 0,
      inFlight: 2,
      requestsPerS: 4.5,
      outputTokensPerS: 300,
      ttftP50Ms: 42,
    },
    scenario: 'steady',
    plannedMs: 10_000,
    plannedRequests: null,
  });

  it('redraws in place on a TTY, at most 10 times a second', () => {
    const stream = new MemoryStream(true);
    let now = 0;
    const line = createProgressLine(stream, { tty: true, nowMs: () => now });
    line.update(input(1));
    now = 50;
    line.update(input(2));
    now = 120;
    line.update(input(3));
    line.finish();
    const draws = stream.text.split('\r\x1b[2K').filter(Boolean);
    expect(draws).toHaveLength(2);
    expect(draws[0]).toContain('requests 1/3');
    expect(draws[1]).toContain('requests 3/5');
    expect(draws[1]).toMatch(/4\.5 req\/s.*300 tok\/s.*ttft p50 42ms.*errors 1.*left 0:07/);
    expect(stream.text).not.toContain('\n');
  });

  it('prints a plain line every 5 s otherwise', () => {
    const stream = new MemoryStream(false);
    let now = 0;
    const line = createProgressLine(stream, { tty: false, nowMs: () => now });
    for (let second = 0; second <= 10; second++) {
      now = second * 1000;
      line.update(input(second));
    }
    expect(stream.text.split('\n').filter(Boolean)).toHaveLength(3);
    expect(stream.text).not.toContain('\x1b');
  });
});

describe('run id', () => {
  it('is the UTC start to the second plus the profile name', () => {
    expect(makeRunId(Date.UTC(2026, 10, 22, 3, 15, 0, 123), 'quickstart')).toBe('20261122T031500Z-quickstart');
    expect(makeRunId(Date.UTC(2026, 0, 2, 3, 4, 5), 'my profile/../x')).toBe('20260102T030405Z-my-profile-..-x');
  });
});
