/**
 * prompt.dataset through createWorkload: filters by token length (counts exact), limit, output tokens from
 * the dataset, seeded sampling (cycle, with and without replacement), the supply rules of
 * without_replacement, the profile checks of the block, and the workload hash of its options.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-dataset-sampling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Twelve ShareGPT conversations: prompt i is "Question i:" plus i words, its answer 2*i words. */
const PROMPTS = Array.from({ length: 12 }, (_, i) => `Question ${i}:${' apple'.repeat(i)}`);
const ANSWERS = Array.from({ length: 12 }, (_, i) => `Sure.${' pear'.repeat(2 * i)}`);
const records = [
  ...PROMPTS.map((prompt, i) => ({
    conversations: [
      { from: 'human', value: prompt },
      { from: 'gpt', value: ANSWERS[i] },
    ],
  })),
  { conversations: [{ from: 'gpt', value: 'no question here' }] },
  { conversations: [{ from: 'human', value: 'unanswered question' }] },
];
writeFileSync(join(dir, 'chat.json'), JSON.stringify(records, null, 2));

/** A two-group profile over chat.json: `dataset` adds dataset options, `prompt` other prompt fields. */
function profileOf(dataset: string, more = '', requests = 'requests: 10', prompt = ''): ResolvedProfile {
  return resolveProfileText(
    `scenarios:\n  - name: s\n    models: [m1, m2]\n    ${requests}\n    seed: 7\n${more}    prompt: { dataset: { path: chat.json${dataset} }${prompt} }\n`,
    join(dir, 'p.yaml'),
  );
}

function workloadOf(profile: ResolvedProfile, groupIndex = 0) {
  const resolved = resolveGroupModels(profile, 'm');
  const group = resolved.groups[groupIndex]!;
  return createWorkload(resolved.scenarios.find((s) => s.name === group.scenario)!, group);
}

const userText = (messages: unknown): string =>
  (messages as ChatMessage[]).find((m) => m.role === 'user')!.content as string;
const promptsOf = (profile: ResolvedProfile, count: number, group = 0): string[] => {
  const workload = workloadOf(profile, group);
  return Array.from({ length: count }, (_, i) => userText(workload.next(i).body.messages));
};

const promptTokens = PROMPTS.map((p) => countTokens(p));
const answerTokens = ANSWERS.map((a) => countTokens(a));

describe('prompt.dataset filters', () => {
  it('counts every entry dropped, under the first rule it failed', () => {
    const workload = workloadOf(
      profileOf(', output_tokens: dataset, min_input_tokens: 6, max_input_tokens: 12, max_output_tokens: 15'),
    );
    const byInputMin = promptTokens.filter((t) => t < 6).length;
    const byInputMax = promptTokens.filter((t) => t > 12).length;
    const byOutputMax = promptTokens.filter((t, i) => t >= 6 && t <= 12 && answerTokens[i]! > 15).length;
    expect(byInputMin + byInputMax + byOutputMax).toBeGreaterThan(3);
    expect(workload.dataset).toMatchObject({
      format: 'sharegpt',
      read: 14,
      filtered: {
        no_user_turn: 1,
        no_answer: 1,
        min_input_tokens: byInputMin,
        max_input_tokens: byInputMax,
        min_output_tokens: 0,
        max_output_tokens: byOutputMax,
      },
      limited: 0,
      kept: 12 - byInputMin - byInputMax - byOutputMax,
      sample: 'cycle',
    });
    expect(workload.dataset!.dropped).toContain(`${byInputMax} by max_input_tokens (> 12)`);
  });

  it('without output_tokens: dataset an unanswered conversation is kept; a conversation with no user turn never is', () => {
    const workload = workloadOf(profileOf(''));
    expect(workload.dataset).toMatchObject({ read: 14, kept: 13, filtered: { no_user_turn: 1, no_answer: 0 } });
    expect(new Set(promptsOf(profileOf(''), 13))).toContain('unanswered question');
  });

  it('counts the prompt as sent: the profile system prompt counts toward max_input_tokens', () => {
    const bare = workloadOf(profileOf(', max_input_tokens: 8')).dataset!;
    const withSystem = workloadOf(
      profileOf(', max_input_tokens: 8', '', 'requests: 3', ', system: Answer briefly and kindly.'),
    ).dataset!;
    const system = countTokens('Answer briefly and kindly.');
    expect(bare.kept).toBe(promptTokens.filter((t) => t <= 8).length + 1);
    expect(withSystem.kept).toBe(
      promptTokens.filter((t) => t + system <= 8).length + (countTokens('unanswered question') + system <= 8 ? 1 : 0),
    );
    expect(withSystem.kept).toBeLessThan(bare.kept);
  });

  it('an empty result is a BAD_PROFILE error saying how many were read and what dropped them', () => {
    expect(() => workloadOf(profileOf(', output_tokens: dataset, min_input_tokens: 1000')).next(0)).toThrow(
      `dataset ${join(dir, 'chat.json')}: no entries left after filtering (14 read as sharegpt; dropped 1 with no user turn, 1 with no answer (output_tokens: dataset), 12 by min_input_tokens (< 1000))`,
    );
  });

  it('limit keeps the first N left after filtering, in file order, and examines no further', () => {
    const profile = profileOf(', min_input_tokens: 6, limit: 3');
    const passing = PROMPTS.flatMap((_, i) => (promptTokens[i]! >= 6 ? [i] : []));
    expect(new Set(promptsOf(profile, 9))).toEqual(new Set(passing.slice(0, 3).map((i) => PROMPTS[i])));
    const examined = passing[2]! + 1;
    expect(workloadOf(profile).dataset).toMatchObject({
      read: 14,
      kept: 3,
      limited: 14 - examined,
      filtered: { min_input_tokens: examined - 3 },
    });
    expect(workloadOf(profile).dataset!.dropped).toBe(
      `${examined - 3} by min_input_tokens (< 6), ${14 - examined} not examined (limit 3 reached)`,
    );
  });
});

describe('prompt.dataset output tokens', () => {
  it("output_tokens: dataset sends each entry's own answer length as max_completion_tokens, over prompt.output_tokens", () => {
    const workload = workloadOf(profileOf(', output_tokens: dataset', '', 'requests: 5', ', output_tokens: 99'));
    for (let i = 0; i < 12; i++) {
      const plan = workload.next(i);
      const index = PROMPTS.indexOf(userText(plan.body.messages));
      expect(plan.body.max_completion_tokens).toBe(answerTokens[index]);
      expect(plan.expectedInputTokens).toBe(promptTokens[index]);
    }
  });

  it('otherwise prompt.output_tokens sets it as before', () => {
    const workload = workloadOf(profileOf('', '', 'requests: 5', ', output_tokens: 99'));
    expect(workload.next(3).body.max_completion_tokens).toBe(99);
  });
});

describe('prompt.dataset sampling', () => {
  it('cycle: one seeded order of every entry, repeated; the same for every group and every run', () => {
    const profile = profileOf('');
    const first = promptsOf(profile, 26);
    expect(new Set(first.slice(0, 13)).size).toBe(13);
    expect(first.slice(13)).toEqual(first.slice(0, 13));
    expect(promptsOf(profile, 26)).toEqual(first);
    expect(promptsOf(profile, 26, 1)).toEqual(first);
    const reseeded = resolveProfileText(
      `scenarios:\n  - name: s\n    requests: 1\n    seed: 8\n    prompt: { dataset: { path: chat.json } }\n`,
      join(dir, 'p.yaml'),
    );
    expect(promptsOf(reseeded, 13)).not.toEqual(first.slice(0, 13));
  });

  it('without_replacement: each entry once, in a seeded order; past the end a warning, and the order again', () => {
    const profile = profileOf(', sample: without_replacement', '', 'duration: 10s');
    const workload = workloadOf(profile);
    const sequence = Array.from({ length: 13 }, (_, i) => userText(workload.next(i).body.messages));
    expect(new Set(sequence).size).toBe(13);
    expect(workload.warnings!()).toEqual([]);
    expect(userText(workload.next(13).body.messages)).toBe(sequence[0]);
    expect(workload.warnings!()).toEqual([
      'scenario s: prompt.dataset (sample: without_replacement) ran out of its 13 entries at request 14; later requests reused them in the same seeded order',
    ]);
    expect(promptsOf(profile, 13)).toEqual(sequence);
  });

  it('without_replacement refuses, at build, a requests count (warmup included) the entries cannot serve', () => {
    expect(workloadOf(profileOf(', sample: without_replacement', '', 'requests: 13')).dataset!.kept).toBe(13);
    expect(() => workloadOf(profileOf(', sample: without_replacement', '', 'requests: 14'))).toThrow(
      `scenario s: 14 requests with prompt.dataset.sample: without_replacement, but dataset ${join(dir, 'chat.json')} has only 13 entries left (14 read; dropped 1 with no user turn)`,
    );
    expect(() =>
      workloadOf(profileOf(', sample: without_replacement, limit: 5', '    warmup_requests: 2\n', 'requests: 4')),
    ).toThrow(
      /6 requests \(2 of them warmup\) with prompt\.dataset\.sample: without_replacement, but .* only 5 entries/,
    );
  });

  it('with_replacement: a seeded draw per request, independent of the order requests are built in', () => {
    const profile = profileOf(', sample: with_replacement');
    const draws = promptsOf(profile, 200);
    expect(new Set(draws).size).toBe(13);
    expect(new Set(draws.slice(0, 13)).size).toBeLessThan(13);
    const backwards = workloadOf(profile);
    const reversed = Array.from({ length: 200 }, (_, k) => userText(backwards.next(199 - k).body.messages)).reverse();
    expect(reversed).toEqual(draws);
    expect(draws).not.toEqual(promptsOf(profileOf(''), 200));
  });
});

describe('prompt.dataset profile checks and workload hash', () => {
  it('refuses min > max, and answer-length filters without output_tokens: dataset', () => {
    writeFileSync(join(dir, 'checks.json'), '[]');
    const problems = profileProblems(
      'scenarios:\n  - name: s\n    requests: 1\n    prompt: { dataset: { path: checks.json, min_input_tokens: 9, max_input_tokens: 3, max_output_tokens: 5, sample: sometimes } }\n',
      dir,
    );
    expect(problems.join('\n')).toContain(
      'scenarios[0].prompt.dataset.min_input_tokens: min_input_tokens (9) is greater than max_input_tokens (3)',
    );
    expect(problems.join('\n')).toContain(
      'scenarios[0].prompt.dataset.max_output_tokens: max_output_tokens filters by the answer length of each entry: it needs output_tokens: dataset',
    );
    expect(problems.join('\n')).toMatch(
      /scenarios\[0\]\.prompt\.dataset\.sample: .*cycle.*with_replacement.*without_replacement/,
    );
  });

  it('hashes every option that changes what is sent, and leaves the hash of a profile without them as it was', () => {
    const base = workloadHash(profileOf(''));
    expect(workloadHash(profileOf(', format: auto, sample: cycle, output_tokens: prompt'))).toBe(base);
    const hashes = [
      ', format: sharegpt',
      ', sample: with_replacement',
      ', sample: without_replacement',
      ', limit: 4',
      ', min_input_tokens: 2',
      ', max_input_tokens: 50',
      ', output_tokens: dataset',
      ', output_tokens: dataset, max_output_tokens: 9',
    ].map((options) => workloadHash(profileOf(options)));
    expect(new Set([base, ...hashes]).size).toBe(hashes.length + 1);
  });
});
