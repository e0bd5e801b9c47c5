import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const MATRIX = `scenarios:
  - name: think
    models: [m1, m2]
    tiers: [default, flex]
    reasoning_efforts: [low, high]
    duration: 1s
  - name: chat
    models: [m1]
    duration: 1s
    request: { temperature: 0.5, max_completion_tokens: 64 }
    prompt: { input_tokens: 100, system: "be brief" }
    mix:
      - { name: short, weight: 7 }
      - { name: long, weight: 2, prompt: { input_tokens: 900 }, request: { max_completion_tokens: 512 } }
      - { name: odd, weight: 1, request_extra: { top_k: 5 }, prompt: { system: "be odd" } }
  - name: both
    models: [m1]
    duration: 1s
    reasoning_efforts: [medium]
    mix: [{ name: a, weight: 1 }, { name: b, weight: 3 }]
`;

describe('reasoning_efforts and mix: group expansion', () => {
  const profile = resolveProfileText(MATRIX, 'p.yaml');

  it('makes model x tier x effort x class groups, in that order, keyed scenario[.class][.effort]/model/tier', () => {
    expect(profile.groups.map((g) => g.key)).toEqual([
      'think.low/m1/default',
      'think.high/m1/default',
      'think.low/m1/flex',
      'think.high/m1/flex',
      'think.low/m2/default',
      'think.high/m2/default',
      'think.low/m2/flex',
      'think.high/m2/flex',
      'chat.short/m1/-',
      'chat.long/m1/-',
      'chat.odd/m1/-',
      'both.a.medium/m1/-',
      'both.b.medium/m1/-',
    ]);
    expect(profile.groups.map((g) => g.index)).toEqual(profile.groups.map((_, i) => i));
    expect(profile.groups[1]).toEqual({
      index: 1,
      scenario: 'think',
      model: 'm1',
      tier: 'default',
      key: 'think.high/m1/default',
      reasoningEffort: 'high',
    });
    expect(profile.groups[9]).toMatchObject({ scenario: 'chat', mixClass: 'long', key: 'chat.long/m1/-' });
    expect(profile.groups[9]).not.toHaveProperty('reasoningEffort');
    expect(profile.groups[12]).toMatchObject({ scenario: 'both', mixClass: 'b', reasoningEffort: 'medium' });
  });

  it('keeps the dimensions when models are resolved from the target', () => {
    const text = 'scenarios:\n  - { name: s, duration: 1s, reasoning_efforts: [low], mix: [{ name: c, weight: 1 }] }\n';
    const resolved = resolveGroupModels(resolveProfileText(text, 'p.yaml'), 'first');
    expect(resolved.groups.map((g) => g.key)).toEqual(['s.c.low/first/-']);
  });

  it('normalizes weights and merges each class over the scenario one level deep', () => {
    const chat = profile.scenarios.find((s) => s.name === 'chat')!;
    expect(chat.mix!.map((c) => [c.name, c.share])).toEqual([
      ['short', 0.7],
      ['long', 0.2],
      ['odd', 0.1],
    ]);
    const [short, long, odd] = chat.mix!;
    expect(short!.prompt).toEqual(chat.prompt);
    expect(short!.request).toEqual(chat.request);
    expect(long!.prompt.inputTokens).toEqual({ dist: 'fixed', value: 900 });
    expect(long!.prompt.system).toBe('be brief');
    expect(long!.request).toMatchObject({ temperature: 0.5, max_completion_tokens: 512, stream: true });
    expect(odd!.prompt.system).toBe('be odd');
    expect(odd!.prompt.inputTokens).toEqual({ dist: 'fixed', value: 100 });
    expect(odd!.requestExtra).toEqual({ top_k: 5 });
    expect(chat).not.toHaveProperty('reasoningEfforts');
  });

  it("builds each group's requests from its class and effort", () => {
    const resolved = profile;
    const bodyOf = (key: string, index = 0) => {
      const group = resolved.groups.find((g) => g.key === key)!;
      const scenario = resolved.scenarios.find((s) => s.name === group.scenario)!;
      return createWorkload(scenario, group).next(index);
    };
    expect(bodyOf('think.high/m1/flex').body).toMatchObject({
      model: 'm1',
      service_tier: 'flex',
      reasoning_effort: 'high',
    });
    expect(bodyOf('chat.short/m1/-').body).not.toHaveProperty('reasoning_effort');
    const long = bodyOf('chat.long/m1/-');
    expect(long.body).toMatchObject({ max_completion_tokens: 512, temperature: 0.5 });
    expect(long.expectedInputTokens).toBe(900 + 2);
    const odd = bodyOf('chat.odd/m1/-');
    expect(odd.body).toMatchObject({ top_k: 5, max_completion_tokens: 64 });
    expect((odd.body.messages as { content: string }[])[0]!.content).toBe('be odd');
    // Efforts of one model and tier send other words (no prompt cache shared between them).
    const low = bodyOf('think.low/m1/flex').body.messages as { content: string }[];
    const high = bodyOf('think.high/m1/flex').body.messages as { content: string }[];
    expect(low[0]!.content).not.toBe(high[0]!.content);
  });

  it('shows the efforts and each class as sent in the plan `validate` prints', () => {
    const plan = formatProfilePlan(profile);
    expect(plan).toContain('  efforts    low, high (one group each, sending reasoning_effort)\n');
    expect(plan).toContain(
      '  mix        one schedule per model x tier x effort; each request picks a class by weight:\n',
    );
    expect(plan).toMatch(
      / {13}long 20%: input 900 tokens; .*system prompt "be brief"; request \{[^\n]*"max_completion_tokens":512/,
    );
    expect(plan).toContain('               extra {"top_k":5}\n');
  });

  it('puts efforts and classes in the workload hash (and leaves profiles without them alone)', () => {
    const base = 'scenarios:\n  - { name: s, models: [m], duration: 1s';
    const plain = workloadHash(resolveProfileText(`${base} }\n`, 'p.yaml'));
    const efforts = workloadHash(resolveProfileText(`${base}, reasoning_efforts: [low] }\n`, 'p.yaml'));
    const mixA = workloadHash(resolveProfileText(`${base}, mix: [{ name: a, weight: 1 }] }\n`, 'p.yaml'));
    const mixB = workloadHash(
      resolveProfileText(`${base}, mix: [{ name: a, weight: 1, prompt: { input_tokens: 9 } }] }\n`, 'p.yaml'),
    );
    expect(new Set([plain, efforts, mixA, mixB]).size).toBe(4);
  });
});

describe('reasoning_efforts and mix: profile errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-dimensions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names unknown efforts with the closest spec value', () => {
    const problems = profileProblems(
      'scenarios:\n  - { name: s, duration: 1s, reasoning_efforts: [low, hihg, extreme, low] }\n',
    );
    expect(problems).toEqual([
      'p.yaml:2:55: scenarios[0].reasoning_efforts[1]: "hihg" is not a reasoning_effort (did you mean "high"?); expected one of low, medium, high, none',
      'p.yaml:2:61: scenarios[0].reasoning_efforts[2]: "extreme" is not a reasoning_effort; expected one of low, medium, high, none',
      'p.yaml:2:70: scenarios[0].reasoning_efforts[3]: "low" is listed twice',
    ]);
  });

  it('refuses an effort set twice, in the scenario, in defaults or in a class', () => {
    const problems = profileProblems(`defaults:
  request: { reasoning_effort: low }
scenarios:
  - name: s
    duration: 1s
    reasoning_efforts: [high]
    mix: [{ name: a, weight: 1, request: { reasoning_effort: medium } }]
`);
    expect(problems).toEqual([
      'p.yaml:2:14: defaults.request.reasoning_effort: set reasoning_efforts (one group per effort) or reasoning_effort, not both',
      'p.yaml:7:44: scenarios[0].mix[0].request.reasoning_effort: set reasoning_efforts (one group per effort) or reasoning_effort, not both',
    ]);
  });

  it('checks class names, weights, datasets and sweeps', () => {
    const problems = profileProblems(
      `scenarios:
  - name: s
    duration: 1s
    load: { mode: sweep }
    mix:
      - { name: a, weight: 1 }
      - { name: a, weight: 0 }
      - { name: "b c", weight: -2 }
      - { name: d, weight: 1, prompt: { dataset: { path: missing.jsonl } }, colour: red }
`,
      dir,
    );
    expect(problems).toEqual([
      'p.yaml:5:5: scenarios[0].mix: a sweep cannot run a mix (each of its phases is one schedule per group); sweep each class apart',
      'p.yaml:7:17: scenarios[0].mix[1].name: duplicate class name "a" (also mix[0])',
      'p.yaml:7:28: scenarios[0].mix[1].weight: Too small: expected number to be >0',
      'p.yaml:8:17: scenarios[0].mix[2].name: expected a name of letters, digits, ".", "_" and "-"',
      'p.yaml:8:32: scenarios[0].mix[2].weight: Too small: expected number to be >0',
      `p.yaml:9:58: scenarios[0].mix[3].prompt.dataset.path: file not found: ${join(dir, 'missing.jsonl')}`,
      'p.yaml:9:77: scenarios[0].mix[3].colour: unknown key; expected one of name, weight, prompt, request, request_extra',
    ]);
  });

  it('validates threshold keys against the groups a mix or efforts make', () => {
    const base = `scenarios:
  - { name: chat, models: [m], duration: 1s, mix: [{ name: short, weight: 1 }, { name: long, weight: 1 }] }
  - { name: think, models: [m], duration: 1s, reasoning_efforts: [low, high] }
`;
    const ok = resolveProfileText(
      `${base}thresholds: ["chat.short/m/-: ttft_ms.p99 < 1", "think.high/m/-: e2e_ms.p50 < 9"]\n`,
      'p.yaml',
    );
    expect(ok.thresholds.map((t) => t.group)).toEqual(['chat.short/m/-', 'think.high/m/-']);
    expect(
      profileProblems(`${base}thresholds: ["chat/m/-: ttft_ms.p99 < 1", "think.medium/m/-: e2e_ms.p50 < 9"]\n`),
    ).toEqual([
      'p.yaml:4:14: thresholds[0]: group "chat/m/-" names no scenario of this profile (its group keys start with "chat.short", "chat.long")',
      'p.yaml:4:43: thresholds[1]: group "think.medium/m/-" names no scenario of this profile',
    ]);
  });

  it('refuses two scenarios whose group keys would be the same', () => {
    expect(
      profileProblems(
        'scenarios:\n  - { name: a.b, duration: 1s }\n  - { name: a, duration: 1s, mix: [{ name: b, weight: 1 }] }\n',
      ),
    ).toEqual([
      'p.yaml:3:13: scenarios[1].name: its groups\' keys start with "a.b", as those of scenarios[0] do; rename one',
    ]);
  });
});
