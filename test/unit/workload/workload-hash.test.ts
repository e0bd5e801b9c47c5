import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { canonicalJson, workloadHash, workloadHashWithoutModels } from '../../../src/workload/workload-hash.js';

const BASE = `scenarios:
  - name: s
    models: [a, b]
    tiers: [default]
    duration: 10s
    load: { concurrency: 4 }
    request: { temperature: 0, max_completion_tokens: 64 }
    prompt: { input_tokens: 100 }
`;
const hashOf = (text: string, overrides: string[] = [], name = '/tmp/p.yaml') =>
  workloadHash(resolveProfileText(text, name, overrides));

describe('workloadHash', () => {
  it('is a stable SHA-256 hex digest', () => {
    expect(hashOf(BASE)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOf(BASE)).toBe(hashOf(BASE));
  });

  it('ignores what does not change the requests: load, limits, timeouts, key order, profile name', () => {
    const h = hashOf(BASE);
    expect(
      hashOf(BASE, [
        'scenarios[0].load.concurrency=64',
        'scenarios[0].duration=1m',
        'scenarios[0].timeouts={ total: 5s }',
        'name=other',
      ]),
    ).toBe(h);
    expect(
      hashOf(
        BASE.replace('{ temperature: 0, max_completion_tokens: 64 }', '{ max_completion_tokens: 64, temperature: 0 }'),
      ),
    ).toBe(h);
  });

  it('changes with anything that is sent', () => {
    const h = hashOf(BASE);
    for (const change of [
      'scenarios[0].seed=2',
      'scenarios[0].models=[a]',
      'scenarios[0].tiers=[flex]',
      'scenarios[0].request.temperature=1',
      'scenarios[0].prompt.input_tokens=101',
      'scenarios[0].prompt.system=hi',
      'scenarios[0].name=t',
    ]) {
      expect(hashOf(BASE, [change]), change).not.toBe(h);
    }
  });

  it('sees resolved models', () => {
    const profile = resolveProfileText('scenarios:\n  - name: s\n    requests: 3\n', '/tmp/p.yaml');
    expect(workloadHash(resolveGroupModels(profile, 'x'))).not.toBe(workloadHash(resolveGroupModels(profile, 'y')));
  });

  it('keeps the hashes of profiles written before request_extra existed', () => {
    // The value summary.json of this profile carried before the field: a stored baseline stays comparable.
    expect(hashOf(BASE)).toBe(hashOf(BASE.replace('    prompt:', '    request_extra: {}\n    prompt:')));
  });

  describe('datasets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferbench-hash-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const text = 'scenarios:\n  - name: s\n    requests: 3\n    prompt: { dataset: { path: d.jsonl } }\n';

    it('hashes the dataset content, not its path', () => {
      const other = mkdtempSync(join(tmpdir(), 'inferbench-hash-'));
      try {
        writeFileSync(join(dir, 'd.jsonl'), '{"prompt": "one"}\n');
        copyFileSync(join(dir, 'd.jsonl'), join(other, 'd.jsonl'));
        const h = hashOf(text, [], join(dir, 'p.yaml'));
        expect(hashOf(text, [], join(other, 'p.yaml'))).toBe(h);
        writeFileSync(join(dir, 'd.jsonl'), '{"prompt": "two"}\n');
        expect(hashOf(text, [], join(dir, 'p.yaml'))).not.toBe(h);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });
  });
});

describe('workloadHashWithoutModels', () => {
  const without = (text: string, overrides: string[] = []) =>
    workloadHashWithoutModels(resolveProfileText(text, '/tmp/p.yaml', overrides));

  it('is the same for the same requests sent to models named differently, unlike workloadHash', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: s\n    requests: 3\n    prompt: { input_tokens: 64 }\n',
      '/tmp/p.yaml',
    );
    const vllm = resolveGroupModels(profile, 'llama');
    const sglang = resolveGroupModels(profile, 'llama-3');
    expect(workloadHash(vllm)).not.toBe(workloadHash(sglang));
    expect(workloadHashWithoutModels(vllm)).toBe(workloadHashWithoutModels(sglang));
    expect(workloadHashWithoutModels(vllm)).toMatch(/^[0-9a-f]{64}$/);
    expect(workloadHashWithoutModels(vllm)).not.toBe(workloadHash(vllm));
    expect(without(BASE, ['scenarios[0].models=[x]'])).toBe(without(BASE));
  });

  it('changes with anything else that is sent', () => {
    const h = without(BASE);
    for (const change of [
      'scenarios[0].seed=2',
      'scenarios[0].tiers=[flex]',
      'scenarios[0].request.temperature=1',
      'scenarios[0].prompt.input_tokens=101',
      'scenarios[0].name=t',
    ]) {
      expect(without(BASE, [change]), change).not.toBe(h);
    }
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: null }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"x":null,"y":1}]},"b":1}',
    );
  });
});
