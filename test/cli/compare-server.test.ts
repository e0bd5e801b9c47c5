/**
 * `inferbench compare` and the server side (target.server_metrics), in-process on generated runs whose
 * summary.json carry a vLLM + DCGM server side with known values: the terminal table, the markdown, the
 * JSON and compare.html show each concept baseline vs candidate with its change; a side that did not
 * scrape is said plainly; the server side never changes the verdict or the exit code; runs without
 * server data compare exactly as before (no section, no `server` in the JSON).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerSide, makeRunDir } from '../fixtures/make-run.js';
import { runCliInProcess } from '../helpers/cli.js';

let root: string;
let quiet: string;
let busy: string;
let busySlow: string;
let plain: string;
let plainSlow: string;

const one = { models: ['m'], tiers: [null] } as const;
const QUIET = fixtureServerSide({
  running: 4,
  waiting: 3,
  kvCacheMax: 0.61,
  preemptions: 0,
  prefixHitRatio: 0.5,
  ttftP99Ms: 420,
  gpuUtil: 0.7,
  powerW: 350,
  energyPerOutputTokenJ: 0.29,
});
const BUSY = fixtureServerSide({
  running: 8,
  waiting: 37,
  kvCacheMax: 0.99,
  preemptions: 12,
  prefixHitRatio: 0.25,
  ttftP99Ms: 1830,
  gpuUtil: 0.98,
  powerW: 690,
  energyPerOutputTokenJ: 0.575,
});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-compare-server-'));
  // The same client numbers (seed 1) with a quiet and a busy server; a slower client (seed 2) for a regression.
  quiet = makeRunDir(join(root, 'quiet'), { ...one, seed: 1, runId: 'quiet-run', server: QUIET }).dir;
  busy = makeRunDir(join(root, 'busy'), { ...one, seed: 1, runId: 'busy-run', server: BUSY }).dir;
  busySlow = makeRunDir(join(root, 'busy-slow'), { ...one, seed: 2, slowdown: 1.6, runId: 'slow', server: BUSY }).dir;
  plain = makeRunDir(join(root, 'plain'), { ...one, seed: 1, runId: 'plain-run' }).dir;
  plainSlow = makeRunDir(join(root, 'plain-slow'), { ...one, seed: 2, slowdown: 1.6, runId: 'slow' }).dir;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TABLE = [
  'Server side (target.server_metrics): context, never part of the verdict:',
  '  baseline: vllm at http://127.0.0.1:41234/metrics (11 of 11 scrapes ok)',
  '  candidate: vllm at http://127.0.0.1:41234/metrics (11 of 11 scrapes ok)',
  'group       server                            baseline      candidate                   change',
  '----------  ----------------------------  ------------  -------------  -----------------------',
  'steady/m/-  running.mean                             4              8             +4 (+100.0%)',
  'steady/m/-  waiting.mean                             3             37           +34 (+1133.3%)',
  'steady/m/-  waiting.max                              6             74           +68 (+1133.3%)',
  'steady/m/-  kv_cache_usage.max                     61%            99%                   +38 pp',
  'steady/m/-  preemptions.delta                        0             12                      +12',
  'steady/m/-  prefix_cache_hit_ratio.value           50%            25%                   -25 pp',
  'steady/m/-  server_ttft.p99                     420 ms        1830 ms       +1410 ms (+335.7%)',
  'steady/m/-  gpu_util.mean                          70%            98%                   +28 pp',
  'steady/m/-  power_w.mean                         350 W          690 W          +340 W (+97.1%)',
  'steady/m/-  energy_per_output_token_j     0.29 J/token  0.575 J/token  +0.285 J/token (+98.3%)',
  '',
  'PASS: no significant regression beyond tolerance (9 checks, alpha 0.05 (Holm))',
].join('\n');

describe('compare shows the server side of both runs', () => {
  it('the terminal table: each concept baseline vs candidate and its change, before the verdict', async () => {
    const r = await runCliInProcess(['compare', quiet, busy]);
    expect(r.stderr).toBe('');
    // A server far busier at the same client numbers is context: the verdict and the exit code are the client's.
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`\n\n${TABLE}\n`);
  });

  it('markdown, JSON and compare.html carry the same values', async () => {
    const markdown = join(root, 'server.md');
    const out = join(root, 'html');
    const r = await runCliInProcess(['compare', quiet, busy, '--json', '--markdown', markdown, '--out', out]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.server.baseline).toEqual({
      scraped: true,
      endpoints: ['vllm at http://127.0.0.1:41234/metrics (11 of 11 scrapes ok)'],
    });
    expect(json.server.note).toBeNull();
    expect(json.server.values.map((v: { id: string }) => v.id)).toEqual([
      'running.mean',
      'waiting.mean',
      'waiting.max',
      'kv_cache_usage.max',
      'preemptions.delta',
      'prefix_cache_hit_ratio.value',
      'server_ttft.p99',
      'gpu_util.mean',
      'power_w.mean',
      'energy_per_output_token_j',
    ]);
    expect(json.server.values[3]).toEqual({
      group: 'steady/m/-',
      candidateGroup: 'steady/m/-',
      id: 'kv_cache_usage.max',
      unit: 'ratio',
      baseline: 0.61,
      candidate: 0.99,
      absoluteChange: 0.99 - 0.61,
      relativeChange: (0.99 - 0.61) / 0.61,
    });
    expect(json.regressions).toBe(0);
    const md = readFileSync(markdown, 'utf8');
    expect(md).toContain(
      [
        '#### Server side (target.server\\_metrics): context, never part of the verdict',
        '',
        '- baseline: vllm at http://127.0.0.1:41234/metrics (11 of 11 scrapes ok)',
        '- candidate: vllm at http://127.0.0.1:41234/metrics (11 of 11 scrapes ok)',
        '',
        '| group | server | baseline | candidate | change |',
        '|---|---|---:|---:|---:|',
        '| steady/m/- | running.mean | 4 | 8 | +4 (+100.0%) |',
      ].join('\n'),
    );
    expect(md).toContain('| steady/m/- | kv\\_cache\\_usage.max | 61% | 99% | +38 pp |');
    expect(md).toContain(
      '| steady/m/- | energy\\_per\\_output\\_token\\_j | 0.29 J/token | 0.575 J/token | +0.285 J/token (+98.3%) |',
    );
    // compare.html draws its page from the document embedded in it: the server section is in it, with the rows.
    const html = readFileSync(join(out, 'compare.html'), 'utf8');
    const embedded = /<script type="application\/json" id="inferbench-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}';
    const sections = JSON.parse(embedded).sections as {
      id: string;
      title: string;
      blocks: { kind: string; rows?: unknown[] }[];
    }[];
    expect(sections.map((section) => section.id)).toEqual(['verdict', 'metrics', 'server', 'distributions']);
    const server = sections[2];
    expect(server?.title).toBe('Server side (target.server_metrics): context, never part of the verdict');
    const rows = server?.blocks.find((block) => block.kind === 'table')?.rows;
    expect(rows?.[3]).toEqual(['steady/m/-', 'kv_cache_usage.max', '61%', '99%', '+38 pp']);
    expect(rows).toHaveLength(10);
  });

  it('says plainly when only one run scraped, and shows that side alone', async () => {
    for (const [baseline, candidate, only, other] of [
      [quiet, plain, 'baseline', 'candidate'],
      [plain, quiet, 'candidate', 'baseline'],
    ] as const) {
      const r = await runCliInProcess(['compare', baseline, candidate]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`  ${other}: not scraped\n`);
      expect(r.stdout).toContain(
        `  only the ${only} run scraped the server (target.server_metrics): the ${other}'s server side is unknown, not idle, so there is no change to show\n`,
      );
      const kv = only === 'baseline' ? /kv_cache_usage\.max\s+61%\s+–\s+–\n/ : /kv_cache_usage\.max\s+–\s+61%\s+–\n/;
      expect(r.stdout).toMatch(kv);
    }
  });

  it('never changes the verdict: a regression fails with exit 99 whether or not the runs scraped', async () => {
    const withServer = await runCliInProcess(['compare', quiet, busySlow, '--json']);
    const without = await runCliInProcess(['compare', plain, plainSlow, '--json']);
    expect(withServer.code).toBe(99);
    expect(without.code).toBe(99);
    const a = JSON.parse(withServer.stdout);
    const b = JSON.parse(without.stdout);
    expect(a.regressions).toBe(b.regressions);
    expect(a.comparisons).toEqual(b.comparisons);
    expect(a.server.values.find((v: { id: string }) => v.id === 'waiting.mean').candidate).toBe(37);
  });

  it('runs without server data compare exactly as before: no section, no `server` in the JSON', async () => {
    const markdown = join(root, 'plain.md');
    const out = join(root, 'plain-html');
    const r = await runCliInProcess(['compare', plain, plainSlow, '--markdown', markdown, '--out', out]);
    expect(r.code).toBe(99);
    expect(r.stdout).not.toContain('Server side');
    // The table ends with its last metric line, a blank line, then the verdict: nothing between.
    expect(r.stdout).toMatch(/error_rate[^\n]*\n\nFAIL: /);
    expect(readFileSync(markdown, 'utf8')).not.toContain('Server side');
    expect(readFileSync(join(out, 'compare.html'), 'utf8')).not.toContain('Server side');
    expect(readFileSync(join(out, 'compare.html'), 'utf8')).not.toContain('"id":"server"');
    const json = JSON.parse((await runCliInProcess(['compare', plain, plainSlow, '--json'])).stdout);
    expect('server' in json).toBe(false);
  });
});
