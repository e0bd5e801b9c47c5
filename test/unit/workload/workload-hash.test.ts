import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProfile, resolveProfileText } from '../../../src/profile/load-profile.js';
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

/**
 * Literal hashes of the shipped profiles that use none of the workload features of issue 13, computed by the
 * code of commit cc3c4d8 (the last before them; review finding: "as before" tests compared new code with new
 * code). A stored baseline of these profiles must stay comparable: a change here breaks `compare` against it.
 */
describe('hashes of feature-free shipped profiles, as before issue 13', () => {
  const PROFILES = resolve(import.meta.dirname, '../../../profiles');
  it.each([
    [
      'capacity.yaml',
      '4a098c5fa0287adcc28858de20c5ee2b5f57658fe39924b43bd678d51aa21790',
      '4956eac3ef6efe4aeb1451738bf3270cb9c459457a80b01c6cc3f724dabcfee0',
    ],
    [
      'ci-regression.yaml',
      '127db286c7d3031cdc106b64c0275f1e7f85502a6ee55d4d4b9b6cf01e6e44d4',
      '2a917b9485dc8c33cb06ae27c2fffdb5116ce7ed578167062b2a39105dbd022a',
    ],
    [
      'model-comparison.yaml',
      '237fed5531414837332b39bd902d3bb5c3739d690db4ee18b2f31bd4bce5a642',
      '9d4c5cbacaa468385a8b7a842ac7b8af7e63b29615e6a7e2f43ce164e6b9ca6d',
    ],
    [
      'open-loop-poisson.yaml',
      '5fa35b23f790698f4ce805e6c394f6b0805aa809dc9d092a44d224f2fda59b0e',
      '7776c2f623f4451bddd46d2082bf4d4cf04c8373f5312886b080f3f80d983b44',
    ],
    [
      'quickstart.yaml',
      'a522cd94ab2161f09404efda8033c431fe84a1392df70810488b8c3fe6448fe5',
      '439db812bcccda37b89741af21f8a0c8b7d32cfbaefe27671b657badd2015acd',
    ],
    [
      'ramp.yaml',
      '3e18f8fa6121b315c69bb32b637b33a1c6ed9464266de13d7fa72eb6b26636ad',
      '084f56d8295af0760411bd6608de1075c96147f045cb4263bec0b95109a54f4c',
    ],
    [
      'tier-comparison.yaml',
      '82d589bc8f31c5520ddcca58751ca09f5f2d1ebc49b7782d1d70f37673daae2a',
      'a4a21067da4acc452041a580ca09989296f365b375b7e0f9dcea4252046fecfe',
    ],
  ])('%s', (name, hash, withoutModels) => {
    const profile = resolveGroupModels(loadProfile(join(PROFILES, name)), 'model-x');
    expect(workloadHash(profile)).toBe(hash);
    expect(workloadHashWithoutModels(profile)).toBe(withoutModels);
  });
});
