/**
 * `inferbench compare` across deployments, on real runs against two emulators listening on two ports
 * (started per file, closed in teardown). The second deployment is slow by construction (a 300 ms TTFT
 * floor and 50 tokens/s against the built-in 15 ms and 250 tokens/s), so every verdict is known: the slow
 * one as candidate is a regression (exit 99, the FAIL line naming the metrics), the fast one as candidate
 * is not (exit 0, PASS), however loaded the machine. The same profile against both compares with a
 * verdict (never the old "target differs" refusal) and every output names both targets; runs whose
 * servers name the model differently (vLLM's `llama`, SGLang's `llama-3`) are refused with a hint to
 * --pair and compared with it; a different workload (another prompt length) is still refused with --pair;
 * a bad --pair is exit 2 listing the group keys.
 * Slow on purpose (real runs against a deployment slow by construction (1 s to the first token)): not in test:fast.
 * @module-tag slow
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { createEmulator } from '../../src/emulator/emulator.js';
import type { Emulator } from '../../src/emulator/emulator.js';
import { loadCatalogConfig } from '../../src/emulator/catalog/config-file.js';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-compare-deployments-');

/** 30 requests, 6 at a time: 5 rounds of the slow deployment's ~1.3 s (64 slots: no request queues). */
const PROFILE = `name: two-deployments
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 6 }
    requests: 30
    prompt: { input_tokens: 48, output_tokens: 16 }
    request: { temperature: 0 }
    seed: 11
compare:
  tolerances:
    ttft_ms.p50: "100%"
    tpot_ms.p50: "100%"
    e2e_ms.p50: "100%"
`;

/** Tails and ITL of 30 requests on a shared machine are noise: these tests are about targets and pairing, not speed. */
const TAILS_OFF = ['ttft_ms.p99', 'itl_ms.p50', 'itl_ms.p99', 'tpot_ms.p99', 'e2e_ms.p99'].flatMap((m) => [
  '--tolerance',
  `${m}=off`,
]);

/** Each server also serves the built-in models; `llama` and `llama-3` are one model under two names. */
const configNaming = (name: string): string => `models:\n  - id: ${name}\n    based_on: small-fast-8b\n`;

/** The slow deployment: its small-fast-8b and its `llama-3` take 1 s to the first token and 20 ms a token. */
const SLOW_CAPACITY = '    capacity: { ttft_floor_ms: 1000, decode_tokens_per_s: 50, jitter: 0 }\n';
const slowConfigNaming = (name: string): string =>
  `models:\n  - id: small-fast-8b\n${SLOW_CAPACITY}  - id: ${name}\n    based_on: small-fast-8b\n${SLOW_CAPACITY}`;

/** The verdict column of the table's row for `metric` (the last cell). */
function verdictOf(stdout: string, metric: string): string {
  const row = stdout.split('\n').find((line) => new RegExp(`\\s${metric.replace('.', '\\.')}\\s`).test(line));
  if (row === undefined) throw new Error(`no row for ${metric} in:\n${stdout}`);
  return (
    row
      .trim()
      .split(/\s{2,}/)
      .at(-1) ?? ''
  );
}

let vllm: Emulator;
let sglang: Emulator;
const env = { PATH: process.env.PATH, INFERENCE_API_KEY: 'test-key-not-secret' };

beforeAll(async () => {
  writeFileSync(join(folder.dir, 'vllm.yaml'), configNaming('llama'));
  writeFileSync(join(folder.dir, 'sglang.yaml'), slowConfigNaming('llama-3'));
  vllm = await createEmulator({ catalog: loadCatalogConfig(join(folder.dir, 'vllm.yaml')) });
  sglang = await createEmulator({ catalog: loadCatalogConfig(join(folder.dir, 'sglang.yaml')) });
});
afterAll(async () => {
  await Promise.all([vllm?.close(), sglang?.close()]);
});

async function run(out: string, baseUrl: string, ...extra: string[]): Promise<string> {
  const profile = folder.writeProfile('profile', PROFILE);
  const dir = join(folder.dir, out);
  const result = await runCliInProcess(['run', profile, '--base-url', baseUrl, '--out', dir, '--quiet', ...extra], {
    cwd: folder.dir,
    env,
  });
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

describe('compare across deployments', () => {
  it('compares one profile run against two servers on two ports with a verdict, and shows both targets everywhere', async () => {
    expect(vllm.url).not.toBe(sglang.url);
    const a = await run('a', vllm.url);
    const b = await run('b', sglang.url);
    expect(readSummary(a).workload_hash).toBe(readSummary(b).workload_hash);
    expect(readSummary(a).workload_hash_without_models).toMatch(/^[0-9a-f]{64}$/);

    const junit = join(folder.dir, 'targets.xml');
    const markdown = join(folder.dir, 'targets.md');
    const html = join(folder.dir, 'targets-html');
    const result = await runCliInProcess(
      ['compare', a, b, '--junit', junit, '--markdown', markdown, '--out', html, ...TAILS_OFF],
      { env },
    );
    // The slow deployment as candidate: a regression on every latency compared, whatever the load.
    expect(result.code, result.stdout + result.stderr).toBe(99);
    expect(result.stderr).not.toMatch(/target differs|WARNING: --force/);
    expect(result.stdout).toMatch(
      /^FAIL: 3 regression\(s\) beyond tolerance at alpha [0-9.]+( \(Holm\))?: steady\/small-fast-8b\/- ttft_ms\.p50, steady\/small-fast-8b\/- tpot_ms\.p50, steady\/small-fast-8b\/- e2e_ms\.p50$/m,
    );
    for (const metric of ['ttft_ms.p50', 'tpot_ms.p50', 'e2e_ms.p50'])
      expect(verdictOf(result.stdout, metric)).toBe('REGRESSION');
    expect(verdictOf(result.stdout, 'error_rate')).toMatch(/^ok/);
    for (const url of [vllm.url, sglang.url]) {
      expect(result.stdout).toContain(url);
      expect(readFileSync(markdown, 'utf8')).toContain(url);
      expect(readFileSync(join(html, 'compare.html'), 'utf8')).toContain(url);
    }
    expect(result.stdout).toMatch(new RegExp(`baseline\\s+\\S+\\s+${vllm.url}`));
    expect(result.stdout).toMatch(new RegExp(`candidate\\s+\\S+\\s+${sglang.url}`));
    expect(result.stdout).toContain('targets differ: this compares two deployments');

    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (name) => ['testsuite', 'property'].includes(name),
    }).parse(readFileSync(junit, 'utf8'));
    expect(doc.testsuites['@name']).toBe(`inferbench compare: ${vllm.url} vs ${sglang.url}`);
    const properties = Object.fromEntries(
      (doc.testsuites.testsuite[0].properties.property as { '@name': string; '@value': string }[]).map((p) => [
        p['@name'],
        p['@value'],
      ]),
    );
    expect(properties['baseline_target']).toBe(vllm.url);
    expect(properties['candidate_target']).toBe(sglang.url);

    const json = await runCliInProcess(['compare', a, b, '--json', ...TAILS_OFF], { env });
    const parsed = JSON.parse(json.stdout) as {
      baseline: { target: unknown };
      candidate: { target: unknown };
      sameTarget: boolean;
    };
    expect(parsed.baseline.target).toEqual({ baseUrl: vllm.url, embeddedEmulator: false });
    expect(parsed.candidate.target).toEqual({ baseUrl: sglang.url, embeddedEmulator: false });
    expect(parsed.sameTarget).toBe(false);
  });

  it('the fast deployment as candidate against the slow one is no regression: exit 0, PASS, every latency ok', async () => {
    const slow = join(folder.dir, 'b');
    const fast = join(folder.dir, 'a');
    const result = await runCliInProcess(['compare', slow, fast, ...TAILS_OFF], { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^PASS: no significant regression beyond tolerance \(4 checks, alpha [0-9.]+( \(Holm\))?\)$/m,
    );
    expect(result.stdout).not.toMatch(/^FAIL/m);
    // Better by 100% would be a latency of 0: a faster candidate is "ok", within the 100% tolerances.
    for (const metric of ['ttft_ms.p50', 'tpot_ms.p50', 'e2e_ms.p50'])
      expect(verdictOf(result.stdout, metric)).toBe('ok');
    expect(result.stdout).toMatch(new RegExp(`baseline\\s+\\S+\\s+${sglang.url}`));
    expect(result.stdout).toMatch(new RegExp(`candidate\\s+\\S+\\s+${vllm.url}`));
  });

  it('refuses runs whose model names differ with a hint to --pair, and compares them with --pair', async () => {
    const llama = await run('llama', vllm.url, '--set', 'scenarios[0].models=[llama]');
    const llama3 = await run('llama-3', sglang.url, '--set', 'scenarios[0].models=[llama-3]');
    expect(readSummary(llama).workload_hash).not.toBe(readSummary(llama3).workload_hash);
    expect(readSummary(llama).workload_hash_without_models).toBe(readSummary(llama3).workload_hash_without_models);

    const refused = await runCliInProcess(['compare', llama, llama3, ...TAILS_OFF], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/models differ: \[llama\] vs \[llama-3\]/);
    expect(refused.stderr).toMatch(
      /hint: .*--pair <baseline group>=<candidate group>.*baseline groups: steady\/llama\/-; candidate groups: steady\/llama-3\/-/,
    );

    const markdown = join(folder.dir, 'paired.md');
    // --pair before the runs: one value per flag, the runs stay positional.
    const paired = await runCliInProcess(
      [
        'compare',
        '--pair',
        'steady/llama/-=steady/llama-3/-',
        '--tolerance',
        'ttft_ms.p99=off',
        llama,
        llama3,
        '--markdown',
        markdown,
        ...TAILS_OFF,
      ],
      { env },
    );
    // llama-3 is on the slow deployment: the pair is compared, and found worse.
    expect(paired.code, paired.stdout + paired.stderr).toBe(99);
    expect(paired.stderr).not.toMatch(/WARNING/);
    expect(paired.stdout).toMatch(
      /^FAIL: 3 regression\(s\) .*: steady\/llama\/- ttft_ms\.p50, steady\/llama\/- tpot_ms\.p50, steady\/llama\/- e2e_ms\.p50$/m,
    );
    expect(paired.stdout).toContain('paired: steady/llama/- (baseline) with steady/llama-3/- (candidate)');
    expect(paired.stdout).toMatch(/steady\/llama\/- vs steady\/llama-3\/-\s+ttft_ms\.p50/);
    expect(readFileSync(markdown, 'utf8')).toContain('| paired group | steady/llama/- | steady/llama-3/- |');
  });

  it('still refuses a different workload (another prompt length) with --pair, and --force compares it loudly', async () => {
    const llama = join(folder.dir, 'llama');
    const longer = await run(
      'llama-3-longer',
      sglang.url,
      '--set',
      'scenarios[0].models=[llama-3]',
      '--set',
      'scenarios[0].prompt.input_tokens=96',
    );
    const pair = ['--pair', 'steady/llama/-=steady/llama-3/-'];
    const refused = await runCliInProcess(['compare', llama, longer, ...pair, ...TAILS_OFF], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/workload hash without model names differs/);
    const forced = await runCliInProcess(['compare', llama, longer, ...pair, '--force', ...TAILS_OFF], { env });
    expect(forced.code, forced.stdout + forced.stderr).toBe(99);
    expect(forced.stderr).toMatch(/!!! WARNING: --force/);
    expect(forced.stdout).toMatch(/^FAIL: .*steady\/llama\/- ttft_ms\.p50/m);

    const sameName = await run('a-longer', vllm.url, '--set', 'scenarios[0].prompt.input_tokens=96');
    const plain = await runCliInProcess(['compare', join(folder.dir, 'a'), sameName, ...TAILS_OFF], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/workload hash differs/);
  });

  it('a --pair naming no group of its run is exit 2 listing the available group keys', async () => {
    const r = await runCliInProcess(
      ['compare', join(folder.dir, 'llama'), join(folder.dir, 'llama-3'), '--pair', 'steady/llama/-=steady/llama3/-'],
      { env },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--pair steady/llama/-=steady/llama3/-: the candidate run has no group "steady/llama3/-"',
    );
    expect(r.stderr).toContain('baseline groups: steady/llama/-; candidate groups: steady/llama-3/-');
    expect(r.stdout).toBe('');
  });
});
