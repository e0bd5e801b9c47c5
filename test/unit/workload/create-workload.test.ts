import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/profiles');

function profileOf(scenarioYaml: string, overrides: string[] = []): ResolvedProfile {
  return resolveProfileText(
    `scenarios:\n  - name: s\n    requests: 10\n${scenarioYaml}`,
    resolve(FIXTURES, 'inline.yaml'),
    overrides,
  );
}

function workloadOf(profile: ResolvedProfile, groupIndex = 0) {
  const resolved = resolveGroupModels(profile, 'model-x');
  const group = resolved.groups[groupIndex]!;
  return createWorkload(resolved.scenarios.find((s) => s.name === group.scenario)!, group);
}

const textOf = (messages: unknown): string =>
  (messages as ChatMessage[]).map((m) => (typeof m.content === 'string' ? m.content : '')).join('');

function contentTokens(messages: unknown): number {
  return (messages as ChatMessage[]).reduce(
    (sum, m) => sum + countTokens(typeof m.content === 'string' ? m.content : ''),
    0,
  );
}

describe('createWorkload: request bodies', () => {
  it('builds model, messages, request fields, service_tier and max_completion_tokens', () => {
    const profile = profileOf(
      '    models: [m1]\n    tiers: [flex, default]\n    request: { temperature: 0, top_p: 0.5 }\n    prompt: { input_tokens: 50, output_tokens: 20 }\n',
    );
    const plan = workloadOf(profile, 0).next(0);
    expect(Object.keys(plan.body)).toEqual([
      'model',
      'messages',
      'stream',
      'temperature',
      'top_p',
      'stream_options',
      'service_tier',
      'max_completion_tokens',
    ]);
    expect(plan.body).toMatchObject({
      model: 'm1',
      stream: true,
      temperature: 0,
      top_p: 0.5,
      service_tier: 'flex',
      max_completion_tokens: 20,
    });
    expect(plan.body.messages).toHaveLength(1);
    expect((plan.body.messages as ChatMessage[])[0]!.role).toBe('user');
    expect(workloadOf(profile, 1).next(0).body.service_tier).toBe('default');
  });

  it('sends no service_tier without tiers and keeps request.max_completion_tokens without output_tokens', () => {
    const plan = workloadOf(profileOf('    request: { max_completion_tokens: 77, stream: false }\n')).next(3);
    expect(plan.body.model).toBe('model-x');
    expect('service_tier' in plan.body).toBe(false);
    expect(plan.body.max_completion_tokens).toBe(77);
    expect(plan.body.stream).toBe(false);
  });

  it('refuses a group whose model is not resolved yet', () => {
    const profile = profileOf('');
    expect(() => createWorkload(profile.scenarios[0]!, profile.groups[0]!)).toThrow(/has no model yet/);
  });
});

describe('createWorkload: token-exact prompts', () => {
  it('makes prompts of exactly the asked number of tokens (checked with the real tokenizer)', () => {
    for (const tokens of [1, 2, 7, 64, 513, 2000]) {
      const workload = workloadOf(profileOf(`    prompt: { input_tokens: ${tokens} }\n`));
      for (let i = 0; i < 5; i++) {
        const plan = workload.next(i);
        expect(plan.expectedInputTokens).toBe(tokens);
        expect(contentTokens(plan.body.messages)).toBe(tokens);
      }
    }
  });

  it('draws lengths from the distribution and reports each exactly', () => {
    const workload = workloadOf(
      profileOf(
        '    prompt: { input_tokens: { dist: uniform, min: 10, max: 300 }, output_tokens: { dist: normal, mean: 50, stddev: 20, min: 30, max: 70 } }\n',
      ),
    );
    const lengths = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const plan = workload.next(i);
      expect(contentTokens(plan.body.messages)).toBe(plan.expectedInputTokens);
      expect(plan.expectedInputTokens).toBeGreaterThanOrEqual(10);
      expect(plan.expectedInputTokens).toBeLessThanOrEqual(300);
      const out = plan.body.max_completion_tokens as number;
      expect(Number.isInteger(out) && out >= 30 && out <= 70).toBe(true);
      lengths.add(plan.expectedInputTokens);
    }
    expect(lengths.size).toBeGreaterThan(30);
  });

  it('stays exact over many windows of the text pool, with and without a shared prefix', () => {
    for (const prefix of [0, 33]) {
      const workload = workloadOf(
        profileOf(
          `    prompt: { input_tokens: { dist: uniform, min: 1, max: 3000 }, shared_prefix_tokens: ${prefix} }\n`,
        ),
      );
      for (let i = 0; i < 150; i++) {
        const plan = workload.next(i);
        expect(contentTokens(plan.body.messages), `request ${i}`).toBe(plan.expectedInputTokens);
      }
    }
  });

  it('builds prompts longer than the text pool exactly too', () => {
    const plan = workloadOf(
      profileOf('    prompt: { input_tokens: { dist: uniform, min: 40000, max: 70000 } }\n'),
    ).next(0);
    expect(contentTokens(plan.body.messages)).toBe(plan.expectedInputTokens);
  });

  it('counts the system prompt and the shared prefix, exactly', () => {
    const system = 'You are a helpful assistant. Answer briefly.';
    const workload = workloadOf(
      profileOf(`    prompt: { input_tokens: 40, shared_prefix_tokens: 300, system: "${system}" }\n`),
    );
    const a = workload.next(0);
    const b = workload.next(1);
    const [sysA, userA] = a.body.messages as ChatMessage[];
    const [, userB] = b.body.messages as ChatMessage[];
    expect(sysA).toEqual({ role: 'system', content: system });
    expect(a.expectedInputTokens).toBe(countTokens(system) + 300 + 40);
    expect(contentTokens(a.body.messages)).toBe(a.expectedInputTokens);
    expect(contentTokens(b.body.messages)).toBe(b.expectedInputTokens);
    const contentA = userA!.content as string;
    const contentB = userB!.content as string;
    // The first 300 tokens are the same text in every request; what follows differs.
    const prefix = contentA.slice(0, commonPrefixLength(contentA, contentB));
    expect(countTokens(prefix)).toBeGreaterThanOrEqual(300);
    expect(contentA).not.toBe(contentB);
  });

  it('shares the prefix across groups of the scenario, but not the rest of the text', () => {
    const profile = profileOf(
      '    models: [m1]\n    tiers: [default, flex]\n    prompt: { input_tokens: 30, shared_prefix_tokens: 100 }\n',
    );
    const a = textOf(workloadOf(profile, 0).next(5).body.messages);
    const b = textOf(workloadOf(profile, 1).next(5).body.messages);
    expect(countTokens(a.slice(0, commonPrefixLength(a, b)))).toBeGreaterThanOrEqual(100);
    expect(a).not.toBe(b);
  });
});

describe('createWorkload: determinism', () => {
  const yaml =
    '    models: [m1, m2]\n    prompt: { input_tokens: { dist: lognormal, mean: 200, stddev: 80 }, output_tokens: { dist: uniform, min: 5, max: 500 } }\n';

  it('builds the same request for the same (seed, group, index) in any order and in a new workload', () => {
    const first = workloadOf(profileOf(yaml));
    const forward = [0, 1, 2, 3, 4].map((i) => first.next(i));
    const again = workloadOf(profileOf(yaml));
    const backward = [4, 3, 2, 1, 0].map((i) => again.next(i)).reverse();
    expect(backward).toEqual(forward);
    expect(first.next(2)).toEqual(forward[2]);
  });

  it('changes with the seed and the index; lengths are the same in every group of a scenario', () => {
    const base = workloadOf(profileOf(yaml)).next(0);
    const reseeded = workloadOf(profileOf(yaml, ['scenarios[0].seed=2'])).next(0);
    expect(textOf(reseeded.body.messages)).not.toBe(textOf(base.body.messages));
    expect(textOf(workloadOf(profileOf(yaml)).next(1).body.messages)).not.toBe(textOf(base.body.messages));
    const otherGroup = workloadOf(profileOf(yaml), 1).next(0);
    expect(otherGroup.body.model).toBe('m2');
    expect(otherGroup.expectedInputTokens).toBe(base.expectedInputTokens);
    expect(otherGroup.body.max_completion_tokens).toBe(base.body.max_completion_tokens);
    expect(textOf(otherGroup.body.messages)).not.toBe(textOf(base.body.messages));
  });

  it("pins the text of request 0 (a change here changes every benchmark's workload)", () => {
    const plan = workloadOf(profileOf('    prompt: { input_tokens: 12 }\n')).next(0);
    const text = textOf(plan.body.messages);
    expect(countTokens(text)).toBe(12);
    expect(text).toMatchSnapshot();
  });
});

describe('createWorkload: datasets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-dataset-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads text fields, messages arrays and whole-line arrays, and cycles through all of them', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: d\n    models: [m]\n    requests: 9\n    prompt: { dataset: { path: prompts.jsonl, field: text } }\n',
      resolve(FIXTURES, 'inline.yaml'),
    );
    const workload = workloadOf(profile);
    const seen = new Map<string, number>();
    for (let i = 0; i < 8; i++) {
      const plan = workload.next(i);
      const key = JSON.stringify(plan.body.messages);
      seen.set(key, (seen.get(key) ?? 0) + 1);
      expect(plan.expectedInputTokens).toBe(contentTokens(plan.body.messages));
    }
    // Four prompts in the file (one blank line skipped), each used twice in 8 requests.
    expect([...seen.values()]).toEqual([2, 2, 2, 2]);
    const all = [...seen.keys()].map((k) => JSON.parse(k) as ChatMessage[]);
    expect(all).toContainEqual([{ role: 'user', content: 'What is the capital of France?' }]);
    expect(all).toContainEqual([{ role: 'user', content: 'Write a haiku about latency.' }]);
    expect(all).toContainEqual([
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Hello there' },
    ]);
    // The same order in every run.
    expect(workloadOf(profile).next(5)).toEqual(workload.next(5));
  });

  it('adds the system prompt and the shared prefix to dataset prompts and counts them', () => {
    const profile = loadDatasetProfile();
    const workload = workloadOf(profile);
    for (let i = 0; i < 4; i++) {
      const plan = workload.next(i);
      const messages = plan.body.messages as ChatMessage[];
      expect(messages[0]!.role).toBe('system');
      expect(plan.expectedInputTokens).toBe(contentTokens(messages));
    }
  });

  it('fails with the file and line of a bad dataset line', () => {
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, '{"prompt": "ok"}\nnot json\n');
    const profile = resolveProfileText(
      `scenarios:\n  - name: d\n    requests: 1\n    prompt: { dataset: { path: ${path} } }\n`,
      join(dir, 'p.yaml'),
    );
    expect(() => workloadOf(profile)).toThrow(`${path}:2: not valid JSON`);
    const fieldless = resolveProfileText(
      `scenarios:\n  - name: d\n    requests: 1\n    prompt: { dataset: { path: ${resolve(FIXTURES, 'bad-dataset.jsonl')}, field: text } }\n`,
      join(dir, 'p.yaml'),
    );
    expect(() => workloadOf(fieldless)).toThrow(/bad-dataset\.jsonl:2: no "text" field holding text or messages/);
  });

  function loadDatasetProfile(): ResolvedProfile {
    return resolveProfileText(
      'scenarios:\n  - name: d\n    requests: 5\n    prompt: { dataset: { path: prompts.jsonl, field: text }, system: Be terse., shared_prefix_tokens: 16 }\n',
      resolve(FIXTURES, 'inline.yaml'),
    );
  }
});

describe('createWorkload: speed', () => {
  it('builds 2,000-token prompts without calling the tokenizer per request (loose bound; see the report for the figure)', () => {
    const workload = workloadOf(profileOf('    prompt: { input_tokens: 2000 }\n'));
    workload.next(0);
    const count = 500;
    const start = performance.now();
    for (let i = 1; i <= count; i++) workload.next(i);
    const perRequestMs = (performance.now() - start) / count;
    // ~0.01 ms on an idle machine (a window of a prebuilt text pool); 2 ms only fails if something tokenizes per request.
    expect(perRequestMs).toBeLessThan(2);
  });
});

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
