/**
 * `inferbench report <run-dir> --dialect <tool>` over a real run: a short run against an emulator on a real
 * socket, then each tool's table, whose numbers are summary.json's `dialects` and agree with inferbench's
 * own metrics where the definitions coincide (the unit test checks the definitions on a known stream:
 * test/unit/aggregate/dialects.test.ts). A results folder from before dialects says it has none (exit 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import { makeRunDir } from '../fixtures/make-run.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import { fmt } from '../../src/report/html/document-model.js';

const folder = useRunFolder('inferbench-report-dialect-');
const emulators = useInProcessEmulators();

const PROFILE = `
name: dialects
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 3 }
    requests: 12
    request: { max_completion_tokens: 20 }
    prompt: { input_tokens: 32 }
`;

let out: string;
let summary: RunSummary;

beforeAll(async () => {
  out = join(folder.dir, 'run');
  const run = await runCliInProcess(['run', folder.writeProfile('dialects', PROFILE), '--out', out, '--quiet'], {
    cwd: folder.dir,
    target: await emulators.start(),
  });
  expect(run.code, run.stderr).toBe(0);
  summary = readSummary(out);
}, 60_000);

describe('inferbench report --dialect', () => {
  it('prints the vLLM table: summary.json dialects.vllm, consistent with the run', async () => {
    const r = await runCliInProcess(['report', out, '--dialect', 'vllm']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const group = summary.groups[0]!;
    const vllm = group.dialects?.vllm;
    expect(vllm).toBeDefined();
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    const tokens = rows.reduce((sum, row) => sum + Number(row['output_tokens']), 0);
    expect(vllm!.requests).toBe(12);
    expect(vllm!.requests).toBe(group.requests.ok);
    expect(vllm!.output_tokens).toBe(tokens);
    // vLLM's duration: the first request's start to the last one's end, rebuilt from requests.csv (start_ms
    // and e2e_ms, rounded to the microsecond): the same tokens over that window.
    const starts = rows.map((row) => Number(row['start_ms']));
    const ends = rows.map((row) => Number(row['start_ms']) + Number(row['e2e_ms']));
    const windowS = (Math.max(...ends) - Math.min(...starts)) / 1000;
    expect(vllm!.duration_s).toBeCloseTo(windowS, 4);
    expect(vllm!.output_tokens_per_s).toBeCloseTo(tokens / windowS, 0);
    // vLLM's TTFT stamps the first SSE event (the emulator's role chunk): never after the first text.
    const ttft = vllm!.metrics.ttft_ms!;
    expect(ttft.count).toBe(12);
    expect(ttft.mean).toBeLessThanOrEqual(group.metrics.ttft_ms!.mean * 1.002);
    // One ITL sample per event after the first: at least inferbench's text gaps.
    expect(vllm!.metrics.itl_ms!.count).toBeGreaterThanOrEqual(group.metrics.itl_ms!.count);
    expect(r.stdout).toContain(`group ${group.key} as vLLM bench serve reports it (vllm-project/vllm`);
    expect(r.stdout).toMatch(
      new RegExp(`^ttft_ms\\s+TTFT\\s+ms\\s+12\\s+${ttft.mean.toFixed(3)}\\s+${ttft.p50.toFixed(3)}\\s`, 'm'),
    );
    expect(r.stdout).toContain(`${vllm!.output_tokens} output tokens`);
    // report.html shows the tools side by side, vLLM's TTFT under its own name.
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain("In other tools' terms");
    expect(html).toContain(`TTFT: ${fmt(ttft.mean, 2)} / ${fmt(ttft.p99, 2)}`);
  });

  it('AIPerf: ICL is inferbench itl_ms (the same gaps); GuideLLM: the same TTFT; --json prints the readings', async () => {
    const r = await runCliInProcess(['report', out, '--dialect', 'aiperf', '--json']);
    expect(r.code).toBe(0);
    const group = summary.groups[0]!;
    const byGroup = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(byGroup[group.key]).toEqual(group.dialects?.aiperf);
    const icl = group.dialects!.aiperf!.metrics.itl_ms!;
    const itl = group.metrics.itl_ms!;
    expect(icl.name).toBe('Inter Chunk Latency (ICL)');
    expect(icl.count).toBe(itl.count);
    // Exact values against an HdrHistogram of 3 significant digits.
    expect(icl.mean).toBeCloseTo(itl.mean, 0);
    const guidellmTtft = group.dialects!.guidellm!.metrics.ttft_ms!;
    expect(Math.abs(guidellmTtft.mean - group.metrics.ttft_ms!.mean)).toBeLessThan(group.metrics.ttft_ms!.mean * 0.002);
    // Their "inter token latency" is per request: the tpot_ms (GuideLLM) and tpot_with_ttft_ms (llmperf) rows.
    for (const [tool, row] of [
      ['guidellm', 'tpot_ms'],
      ['llmperf', 'tpot_with_ttft_ms'],
    ] as const) {
      const t = await runCliInProcess(['report', out, '--dialect', tool]);
      expect(t.code).toBe(0);
      expect(t.stdout).toMatch(new RegExp(`^${row}\\s+inter_token_latency_\\w+\\s+ms\\s`, 'm'));
    }
  });

  it('a run from before dialects says it has none (exit 2), and an unknown tool is bad usage', async () => {
    const old = makeRunDir(join(folder.dir, 'old'), { seed: 2 });
    const r = await runCliInProcess(['report', old.dir, '--dialect', 'guidellm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`run ${old.summary.run_id} has no guidellm dialect`);
    expect(r.stderr).toContain('recorded before inferbench computed dialects');
    const bad = await runCliInProcess(['report', out, '--dialect', 'k6']);
    expect(bad.code).toBe(2);
  });
});
