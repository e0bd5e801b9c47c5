/**
 * `inferbench validate`, in-process through runCli: the plan it prints, --set, --json, and exit 2 with
 * every problem of a bad profile listed (file, line, column, field). Nothing is sent: no server runs here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'inferbench-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeProfile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('inferbench validate', () => {
  it('prints the expanded plan of a shipped profile and exits 0', async () => {
    const result = await runCliInProcess(['validate', 'profiles/tier-comparison.yaml'], { cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`profile tier-comparison (${resolve(ROOT, 'profiles/tier-comparison.yaml')})`);
    expect(out).toContain('target: the embedded emulator');
    expect(out).toContain('scenario tiers (1 model x 3 tiers: 3 groups)');
    expect(out).toMatch(/ {2}load {7}closed loop, 24 concurrent\n/);
    expect(out).toMatch(/ {2}limits {5}duration 8\.0s, requests -, warmup 1\.0s, graceful stop 30\.0s\n/);
    expect(out).toMatch(/ {2}prompt {5}input 256 tokens; output 256 tokens \(max_completion_tokens\)\n/);
    expect(out).toContain(
      'groups     tiers/ep-large-70b-dedicated/priority, tiers/ep-large-70b-dedicated/default, tiers/ep-large-70b-dedicated/flex',
    );
    expect(out).toContain('error_rate < 0.05 (every group)');
    expect(out).toContain('slo: ttft_ms.p99 <= 2000');
    expect(out).toMatch(/workload hash: [0-9a-f]{64}\n/);
    expect(out.trimEnd().split('\n').at(-1)).toBe('valid: 1 scenario, 3 groups; nothing was sent');
  });

  it('applies --set overrides to the plan', async () => {
    const result = await runCliInProcess(
      [
        'validate',
        'profiles/open-loop-poisson.yaml',
        '--set',
        'scenarios[0].load.arrival=gamma',
        '--set',
        'scenarios[0].load.burstiness=0.5',
        '--set',
        'scenarios[0].tiers=[flex]',
      ],
      { cwd: ROOT },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'open loop, 20 requests/s, gamma arrivals (burstiness 0.5), at most 64 in flight (more are dropped)',
    );
    expect(result.stdout).toContain('groups     poisson/*/flex');
  });

  it('prints the resolved profile as JSON with --json', async () => {
    const result = await runCliInProcess(['validate', 'profiles/ci-regression.yaml', '--json'], { cwd: ROOT });
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      valid: boolean;
      workload_hash: string;
      profile: {
        name: string;
        scenarios: { requests: number; seed: number }[];
        groups: { key: string }[];
        thresholds: { metric: string }[];
      };
      first_requests: { group: string; input_tokens: number; max_completion_tokens: number }[];
    };
    expect(parsed.valid).toBe(true);
    expect(parsed.workload_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.profile.name).toBe('ci-regression');
    expect(parsed.profile.scenarios[0]).toMatchObject({ requests: 120, seed: 42 });
    expect(parsed.profile.groups.map((g) => g.key)).toEqual(['regression/small-fast-8b/-']);
    expect(parsed.profile.thresholds.map((t) => t.metric)).toEqual([
      'error_rate',
      'ttft_ms',
      'e2e_ms',
      'output_tokens_per_s',
    ]);
    expect(parsed.first_requests).toEqual([
      { group: 'regression/small-fast-8b/-', input_tokens: 128, max_completion_tokens: 64 },
    ]);
  });

  it('validates every shipped profile', async () => {
    for (const name of [
      'quickstart',
      'tier-comparison',
      'model-comparison',
      'open-loop-poisson',
      'ramp',
      'ci-regression',
    ]) {
      const result = await runCliInProcess(['validate', `profiles/${name}.yaml`], { cwd: ROOT });
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    }
  });

  it('exits 2 listing every problem with file, line, column and field, and a hint', async () => {
    const path = writeProfile(
      'bad.yaml',
      [
        'name: bad',
        'scenarios:',
        '  - name: s',
        '    duraton: 10s',
        '    load: { mode: rate, rate: -1 }',
        'thresholds: ["ttft_ms.p99 << 5"]',
        '',
      ].join('\n'),
    );
    const result = await runCliInProcess(['validate', path, '--set', 'scenarios[0].seed=x'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`inferbench: ${path}: 5 problems:`);
    expect(lines.slice(1, 6)).toEqual([
      `  ${path}:3:5: scenarios[0]: needs duration and/or requests (here or in defaults)`,
      `  ${path}:4:5: scenarios[0].duraton: unknown key (did you mean "duration"?)`,
      `  ${path}:5:31: scenarios[0].load.rate: Too small: expected number to be >0`,
      `  ${path}:6:14: thresholds[0]: "ttft_ms.p99 << 5" is not a threshold; expected "[group-key:] metric[.stat] op number", e.g. "ttft_ms.p99 < 800" (op: < <= > >=)`,
      '  --set scenarios[0].seed=x: scenarios[0].seed: expected number, received string',
    ]);
    expect(lines[6]).toMatch(/^ {2}hint: .*inferbench validate/);
  });

  it('exits 2 for a missing file, a YAML syntax error and a bad dataset', async () => {
    const missing = await runCliInProcess(['validate', 'nope.yaml'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read profile ${join(dir, 'nope.yaml')}: ENOENT`);

    const syntax = await runCliInProcess(['validate', writeProfile('syntax.yaml', 'scenarios:\n  - name: [s\n')], {
      cwd: dir,
    });
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/syntax\.yaml:\d+:\d+: YAML: /);

    writeFileSync(join(dir, 'prompts.jsonl'), '{"prompt": "fine"}\n{"prompt": 3}\n');
    const dataset = await runCliInProcess(
      [
        'validate',
        writeProfile(
          'dataset.yaml',
          'scenarios:\n  - name: s\n    requests: 2\n    prompt: { dataset: { path: prompts.jsonl } }\n',
        ),
      ],
      { cwd: dir },
    );
    expect(dataset.code).toBe(2);
    expect(dataset.stderr).toContain(`${join(dir, 'prompts.jsonl')}:2: no "prompt" field holding text or messages`);
  });

  it('exits 2 on bad usage', async () => {
    const result = await runCliInProcess(['validate'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Not enough non-option arguments/);
  });
});

describe('validate into a pipe that closes early', () => {
  it('exits 0 without an EPIPE stack trace (`inferbench validate x.yaml | head -1`)', () => {
    const result = spawnSync(
      'bash',
      ['-c', 'set -o pipefail; node dist/cli/main.js validate profiles/quickstart.yaml | head -c 10'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(result.stdout).toBe('profile qu');
    expect(result.stderr).not.toMatch(/EPIPE|Error/);
    expect(result.status).toBe(0);
  });
});
