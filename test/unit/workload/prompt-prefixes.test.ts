import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/profiles');

function profileOf(prompt: string, extra = '') {
  return resolveGroupModels(
    resolveProfileText(
      `scenarios:\n  - name: s\n    requests: 10\n    models: [m1, m2]\n    prompt: ${prompt}\n${extra}`,
      resolve(FIXTURES, 'inline.yaml'),
    ),
    'm1',
  );
}

function workloadOf(prompt: string, groupIndex = 0) {
  const profile = profileOf(prompt);
  return createWorkload(profile.scenarios[0]!, profile.groups[groupIndex]!);
}

const userText = (body: Record<string, unknown>): string =>
  (body.messages as ChatMessage[]).find((m) => m.role === 'user')!.content as string;

const PREFIXES = '{ input_tokens: 40, prefixes: { groups: 4, tokens: 200, share: 0.75 } }';

describe('prompt.prefixes: which prefix a request uses', () => {
  it('uses a prefix in the seeded share of requests: exactly the same count in every build', () => {
    const a = workloadOf(PREFIXES);
    const b = workloadOf(PREFIXES);
    let prefixed = 0;
    const perGroup = [0, 0, 0, 0];
    for (let i = 0; i < 2000; i++) {
      const plan = a.next(i);
      const again = b.next(i);
      expect(again.body).toEqual(plan.body);
      expect(again.labels).toEqual(plan.labels);
      const label = plan.labels!.prefix!;
      if (label !== 'none') {
        prefixed++;
        perGroup[Number(label.slice(1))]!++;
      }
    }
    // Seeded: the same profile picks the same requests in every run (a 75% share gives 1,500 +- sampling noise).
    expect(prefixed).toBe(1491);
    expect(perGroup.reduce((x, y) => x + y, 0)).toBe(prefixed);
    // Each of the 4 groups gets about a quarter of them.
    for (const n of perGroup) expect(n).toBeGreaterThan(300);
  });

  it('starts every prefixed request of a group with the same K tokens and sends its prompt_cache_key', () => {
    const workload = workloadOf(PREFIXES);
    const byGroup = new Map<string, string[]>();
    for (let i = 0; i < 200; i++) {
      const plan = workload.next(i);
      const label = plan.labels!.prefix!;
      const text = userText(plan.body);
      expect(plan.expectedInputTokens).toBe(countTokens(text));
      if (label === 'none') {
        expect(plan.body.prompt_cache_key).toBeUndefined();
        expect(plan.expectedInputTokens).toBe(40);
        continue;
      }
      expect(plan.expectedInputTokens).toBe(240);
      expect(plan.body.prompt_cache_key).toMatch(new RegExp(`^s-[0-9a-f]{8}-${label}$`));
      byGroup.set(label, [...(byGroup.get(label) ?? []), text]);
    }
    expect([...byGroup.keys()].sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
    const prefixes = new Set<string>();
    for (const texts of byGroup.values()) {
      // The longest common start of the group's texts holds the whole prefix: 200 tokens exactly.
      let common = texts[0]!;
      for (const text of texts) while (!text.startsWith(common)) common = common.slice(0, -1);
      const prefix = texts[0]!.slice(0, common.length);
      expect(countTokens(prefix)).toBeGreaterThanOrEqual(200);
      prefixes.add(prefix.slice(0, 400));
    }
    expect(prefixes.size).toBe(4);
  });

  it('gives each group of the scenario its own prefixes and keys (no cache hits across a tier comparison)', () => {
    const first = workloadOf(PREFIXES, 0).next(1);
    const second = workloadOf(PREFIXES, 1).next(1);
    expect(first.labels).toEqual(second.labels);
    expect(first.body.prompt_cache_key).not.toBe(second.body.prompt_cache_key);
  });

  it('takes "80%", defaults share to 1 and cache_key to true, and sends no key with cache_key: false', () => {
    const all = workloadOf('{ input_tokens: 10, prefixes: { groups: 2, tokens: 20 } }');
    for (let i = 0; i < 50; i++) expect(all.next(i).labels!.prefix).not.toBe('none');
    const none = workloadOf('{ input_tokens: 10, prefixes: { groups: 2, tokens: 20, share: "0%", cache_key: false } }');
    expect(none.next(0).labels).toEqual({ prefix: 'none' });
    const noKey = workloadOf('{ input_tokens: 10, prefixes: { groups: 2, tokens: 20, cache_key: false } }').next(0);
    expect(noKey.body.prompt_cache_key).toBeUndefined();
    expect(noKey.labels!.prefix).toMatch(/^p[01]$/);
    expect(
      profileOf('{ prefixes: { groups: 2, tokens: 20, share: "80%" } }').scenarios[0]!.prompt.prefixes!.share,
    ).toBe(0.8);
  });

  it('is part of the workload hash; profiles without it hash as before', () => {
    const plain = workloadHash(profileOf('{ input_tokens: 10 }'));
    expect(profileOf('{ input_tokens: 10 }').scenarios[0]!.prompt).not.toHaveProperty('prefixes');
    const a = workloadHash(profileOf('{ input_tokens: 10, prefixes: { groups: 2, tokens: 20 } }'));
    const b = workloadHash(profileOf('{ input_tokens: 10, prefixes: { groups: 3, tokens: 20 } }'));
    expect(new Set([plain, a, b]).size).toBe(3);
  });
});

describe('prompt.prefixes with target.tokenizer', () => {
  it('makes prefixes of exactly K tokens of that tokenizer, and prompts of K + input_tokens', async () => {
    const named = await loadHfTokenizer(
      resolve(import.meta.dirname, '../../fixtures/tokenizers/tiny-bytelevel-bpe.json'),
    );
    const profile = profileOf('{ input_tokens: 30, prefixes: { groups: 3, tokens: 120, share: 0.5 } }');
    const workload = createWorkload(profile.scenarios[0]!, profile.groups[0]!, named);
    for (let i = 0; i < 40; i++) {
      const plan = workload.next(i);
      const expected = plan.labels!.prefix === 'none' ? 30 : 150;
      expect(plan.expectedInputTokens).toBe(expected);
      expect(named.count(userText(plan.body))).toBe(expected);
    }
  });
});

describe('prompt.prefixes: profile errors', () => {
  const scenario = (prompt: string, request = '') =>
    `scenarios:\n  - name: s\n    requests: 1\n    prompt: ${prompt}\n${request}`;

  it('refuses it with shared_prefix_tokens, naming which to use', () => {
    const problems = profileProblems(scenario('{ shared_prefix_tokens: 100, prefixes: { groups: 2, tokens: 50 } }'));
    expect(problems.join('\n')).toMatch(/shared_prefix_tokens.*set shared_prefix_tokens .* or prefixes .*, not both/);
  });

  it('refuses a prompt_cache_key of the request unless cache_key is false', () => {
    const text = scenario('{ prefixes: { groups: 2, tokens: 50 } }', '    request: { prompt_cache_key: k }\n');
    expect(profileProblems(text).join('\n')).toMatch(
      /prompt_cache_key.*remove it here, or set prefixes.cache_key: false/,
    );
    expect(() =>
      resolveProfileText(
        scenario('{ prefixes: { groups: 2, tokens: 50, cache_key: false } }', '    request: { prompt_cache_key: k }\n'),
        'p.yaml',
      ),
    ).not.toThrow();
  });

  it('refuses bad groups, tokens and share values', () => {
    const problems = profileProblems(scenario('{ prefixes: { groups: 0, tokens: 50, share: "120%" } }')).join('\n');
    expect(problems).toMatch(/prefixes\.groups/);
    expect(problems).toMatch(/prefixes\.share.*fraction from 0 to 1/);
    expect(profileProblems(scenario('{ prefixes: { groups: 2 } }')).join('\n')).toMatch(/prefixes\.tokens/);
  });

  it('caps groups at 999 (with "none", the 1,000 values a breakdown keeps apart) and groups x tokens at 4M', () => {
    expect(profileProblems(scenario('{ prefixes: { groups: 1000, tokens: 5 } }'))).toEqual([
      'p.yaml:4:35: scenarios[0].prompt.prefixes.groups: Too big: expected number to be <=999',
    ]);
    expect(() => resolveProfileText(scenario('{ prefixes: { groups: 999, tokens: 5 } }'), 'p.yaml')).not.toThrow();
    expect(profileProblems(scenario('{ prefixes: { groups: 500, tokens: 8001 } }'))).toEqual([
      'p.yaml:4:15: scenarios[0].prompt.prefixes: 500 groups x 8001 tokens is 4000500 prefix tokens, above the 4000000 a workload builds and holds (per group of the matrix): use fewer groups or shorter prefixes',
    ]);
  });
});
