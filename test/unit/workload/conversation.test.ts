/**
 * The workload side of conversations: what each next request of a session or tool loop holds given the
 * previous answer (plain data), the labels, one prompt_cache_key per conversation, seeded turn counts,
 * think times and user messages, token-exact synthetic user turns and tool results, a dataset
 * conversation's own later user turns, and the profile errors of `session`/`tool_loop`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { createRng } from '../../../src/util/rng.js';
import type { Conversation, PreviousAnswer } from '../../../src/workload/conversation.js';
import { sampleThinkMs } from '../../../src/workload/conversation.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-conversation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function profileOf(scenarioYaml: string) {
  return resolveProfileText(`scenarios:\n  - name: s\n    requests: 10\n${scenarioYaml}`, join(dir, 'p.yaml'), [], dir);
}

function conversationsOf(scenarioYaml: string): (index: number) => Conversation {
  const profile = resolveGroupModels(profileOf(scenarioYaml), 'model-x');
  const workload = createWorkload(profile.scenarios[0]!, profile.groups[0]!);
  expect(workload.conversation).toBeDefined();
  return workload.conversation!;
}

const text = (content: string): PreviousAnswer => ({ content, toolCalls: null, outputTokens: null });
const messagesOf = (body: Record<string, unknown>): ChatMessage[] => body.messages as ChatMessage[];

/** Plays a conversation to its end with the answers `answer(k)`, returning every step. */
function play(conversation: Conversation, answer: (k: number) => PreviousAnswer) {
  const steps = [{ plan: conversation.first, thinkMs: 0 }];
  for (let k = 0; k < 100; k++) {
    const step = conversation.next(answer(k));
    if (step === null) return steps;
    steps.push(step);
  }
  throw new Error('the conversation did not end');
}

describe('sessions', () => {
  const SESSION = '    prompt: { input_tokens: 30 }\n    session: { turns: 3, think_time: 2s, user_tokens: 17 }\n';

  it('sends the whole conversation with the answers, one cache key, turn labels, token-exact user turns', () => {
    const steps = play(conversationsOf(SESSION)(4), (k) => text(`answer ${k}`));
    expect(steps).toHaveLength(3);
    const last = messagesOf(steps[2]!.plan.body);
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(last[1]).toEqual({ role: 'assistant', content: 'answer 0' });
    expect(last[3]).toEqual({ role: 'assistant', content: 'answer 1' });
    // Earlier turns are sent again exactly as they were (a prompt cache can reuse them).
    expect(messagesOf(steps[1]!.plan.body)).toEqual(last.slice(0, 3));
    expect(countTokens(last[0]!.content as string)).toBe(30);
    expect(countTokens(last[2]!.content as string)).toBe(17);
    expect(countTokens(last[4]!.content as string)).toBe(17);
    expect(steps.map((s) => s.plan.labels)).toEqual([{ turn: '1' }, { turn: '2' }, { turn: '3' }]);
    expect(steps.map((s) => s.thinkMs)).toEqual([0, 2000, 2000]);
    const keys = new Set(steps.map((s) => s.plan.body.prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/-4$/);
    // Expected input tokens: the prompt, the answers (counted without usage) and the user turns.
    expect(steps[2]!.plan.expectedInputTokens).toBe(30 + 17 + 17 + countTokens('answer 0') + countTokens('answer 1'));
  });

  it('is seeded: the same turns, think times and user messages in every build, other ones per index', () => {
    const yaml = `    prompt: { input_tokens: 12 }
    session: { turns: { dist: uniform, min: 1, max: 6 }, think_time: { dist: exponential, mean: 1s }, user_tokens: { dist: uniform, min: 5, max: 40 } }
`;
    const snapshot = (index: number) =>
      play(conversationsOf(yaml)(index), () => text('same answer')).map((s) => [s.thinkMs, s.plan.body]);
    expect(snapshot(3)).toEqual(snapshot(3));
    const lengths = new Set(Array.from({ length: 20 }, (_, i) => snapshot(i).length));
    expect(lengths.size).toBeGreaterThan(2);
    expect(snapshot(3)).not.toEqual(snapshot(4));
  });

  it('keeps a prompt_cache_key the request sets', () => {
    const conversation = conversationsOf(`${SESSION}    request: { prompt_cache_key: mine }\n`)(0);
    expect(conversation.first.body.prompt_cache_key).toBe('mine');
  });

  it('puts session and tool_loop in the workload hash', () => {
    const a = workloadHash(profileOf(SESSION));
    expect(workloadHash(profileOf(SESSION.replace('turns: 3', 'turns: 4')))).not.toBe(a);
    expect(workloadHash(profileOf('    prompt: { input_tokens: 30 }\n'))).not.toBe(a);
  });

  it("with a dataset, sends the conversation's own later user turns, at most `turns`", () => {
    const path = join(dir, 'chats.jsonl');
    const turn = (from: string, value: string) => ({ from, value });
    writeFileSync(
      path,
      `${JSON.stringify({
        conversations: [
          turn('human', 'Hello there.'),
          turn('gpt', 'Hi.'),
          turn('human', 'How are you?'),
          turn('gpt', 'Fine.'),
          turn('human', 'Goodbye.'),
        ],
      })}\n`,
    );
    const all = play(conversationsOf('    prompt: { dataset: { path: chats.jsonl } }\n    session: {}\n')(0), (k) =>
      text(`a${k}`),
    );
    expect(all.map((s) => messagesOf(s.plan.body).at(-1)!.content)).toEqual([
      'Hello there.',
      'How are you?',
      'Goodbye.',
    ]);
    expect(messagesOf(all[2]!.plan.body)[1]).toEqual({ role: 'assistant', content: 'a0' });
    const two = play(
      conversationsOf('    prompt: { dataset: { path: chats.jsonl } }\n    session: { turns: 2 }\n')(0),
      () => text('x'),
    );
    expect(two).toHaveLength(2);
  });
});

describe('the tool loop', () => {
  const TOOLS = `    request:
      tools: [{ type: function, function: { name: lookup } }]
`;
  const calls = (ids: string[]): PreviousAnswer => ({
    content: '',
    toolCalls: ids.map((id) => ({ id, name: 'lookup', arguments: '{}' })),
    outputTokens: 5,
  });

  it('answers every call with a token-exact tool message right after the assistant message, up to max_rounds', () => {
    const conversation = conversationsOf(
      `    prompt: { input_tokens: 10 }\n    tool_loop: { max_rounds: 2, result_tokens: 9 }\n${TOOLS}`,
    )(0);
    const steps = play(conversation, (k) => calls([`c${k}a`, `c${k}b`]));
    // Round 0, then two rounds of results; the third answer still calls tools but the loop is over.
    expect(steps.map((s) => s.plan.labels)).toEqual([{ tool_round: '0' }, { tool_round: '1' }, { tool_round: '2' }]);
    const messages = messagesOf(steps[2]!.plan.body);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'tool']);
    expect(messages[1]).toMatchObject({
      content: null,
      tool_calls: [
        { id: 'c0a', type: 'function', function: { name: 'lookup', arguments: '{}' } },
        { id: 'c0b', type: 'function', function: { name: 'lookup', arguments: '{}' } },
      ],
    });
    expect(messages.filter((m) => m.role === 'tool').map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual([
      'c0a',
      'c0b',
      'c1a',
      'c1b',
    ]);
    for (const m of messages.filter((m) => m.role === 'tool')) expect(countTokens(m.content as string)).toBe(9);
    expect(steps.every((s) => s.thinkMs === 0)).toBe(true);
    expect(steps[2]!.plan.expectedInputTokens).toBe(10 + 2 * 5 + 4 * 9);
  });

  it('in a session, moves to the next turn when the model answers with text, and drops unanswered calls', () => {
    const conversation = conversationsOf(
      `    prompt: { input_tokens: 10 }\n    session: { turns: 2, user_tokens: 6 }\n    tool_loop: { max_rounds: 1 }\n${TOOLS}`,
    )(1);
    const answers = [calls(['x']), calls(['y']), text('done')];
    const steps = play(conversation, (k) => answers[k]!);
    expect(steps.map((s) => s.plan.labels)).toEqual([
      { turn: '1', tool_round: '0' },
      { turn: '1', tool_round: '1' },
      { turn: '2', tool_round: '0' },
    ]);
    // Round 1's answer called a tool again past max_rounds: it goes into the history as content only.
    const messages = messagesOf(steps[2]!.plan.body);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(messages[3]).toEqual({ role: 'assistant', content: '' });
  });
});

describe('think times', () => {
  it('draws from their distribution, clamped to max', () => {
    const rng = createRng(1);
    const uniform = Array.from({ length: 500 }, () => sampleThinkMs({ dist: 'uniform', minMs: 100, maxMs: 200 }, rng));
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...uniform)).toBeLessThanOrEqual(200);
    const exp = Array.from({ length: 4000 }, () => sampleThinkMs({ dist: 'exponential', meanMs: 50, maxMs: 300 }, rng));
    const mean = exp.reduce((a, b) => a + b, 0) / exp.length;
    expect(mean).toBeGreaterThan(40);
    expect(mean).toBeLessThan(55);
    expect(Math.max(...exp)).toBeLessThanOrEqual(300);
    const logn = Array.from({ length: 4000 }, () =>
      sampleThinkMs({ dist: 'lognormal', meanMs: 1000, stddevMs: 300, maxMs: 2000 }, rng),
    );
    expect(logn.reduce((a, b) => a + b, 0) / logn.length).toBeGreaterThan(900);
    expect(Math.max(...logn)).toBeLessThanOrEqual(2000);
  });
});

describe('session and tool_loop profile errors', () => {
  it('names the field of each problem', () => {
    const problems = profileProblems(`scenarios:
  - name: s
    requests: 5
    session: { turns: { dist: uniform, min: 5, max: 2 }, think_time: { dist: uniform, min: 2s, max: 1s }, pause: 1 }
    tool_loop: { max_rounds: 0 }
  - name: t
    requests: 5
    session: {}
`);
    const text = problems.join('\n');
    expect(text).toMatch(/scenarios\[0\]\.session\.turns.*min \(5\) is greater than max \(2\)/);
    expect(text).toMatch(/scenarios\[0\]\.session\.think_time.*min \(2s\) is greater than max \(1s\)/);
    expect(text).toMatch(/scenarios\[0\]\.session.*pause/);
    expect(text).toMatch(/scenarios\[0\]\.tool_loop\.max_rounds/);
    expect(text).toMatch(/scenarios\[0\]\.tool_loop.*needs request\.tools/);
    expect(text).toMatch(/scenarios\[1\]\.session.*needs turns/);
  });
});

describe('review fixes: sessions', () => {
  it('with output_tokens: dataset, gives each turn the length of its own answer in the file (3-turn ShareGPT)', () => {
    const turn = (from: string, value: string) => ({ from, value });
    const answers = ['One two.', 'One two three four five six seven eight nine ten.', 'Yes.'];
    writeFileSync(
      join(dir, 'three.jsonl'),
      `${JSON.stringify({
        conversations: [
          turn('human', 'First question?'),
          turn('gpt', answers[0]!),
          turn('human', 'Second question?'),
          turn('gpt', answers[1]!),
          turn('human', 'Third question?'),
          turn('gpt', answers[2]!),
        ],
      })}\n`,
    );
    const steps = play(
      conversationsOf('    prompt: { dataset: { path: three.jsonl, output_tokens: dataset } }\n    session: {}\n')(0),
      () => text('reply'),
    );
    expect(steps).toHaveLength(3);
    expect(steps.map((s) => s.plan.body.max_completion_tokens)).toEqual(answers.map((a) => countTokens(a)));
  });

  it("a mix class's session sends later user turns of the class's input_tokens", () => {
    const profile = resolveGroupModels(
      profileOf(`    prompt: { input_tokens: 30 }
    session: { turns: 2 }
    mix: [{ name: big, weight: 1 }, { name: small, weight: 1, prompt: { input_tokens: 9 } }]
`),
      'model-x',
    );
    const userTurn = (mixClass: string): number => {
      const group = profile.groups.find((g) => g.mixClass === mixClass)!;
      const steps = play(createWorkload(profile.scenarios[0]!, group).conversation!(0), () => text('ok'));
      return countTokens(messagesOf(steps[1]!.plan.body).at(-1)!.content as string);
    };
    expect(userTurn('big')).toBe(30);
    expect(userTurn('small')).toBe(9);
  });

  it('never counts a long answer without usage with the raw tokenizer (a degenerate 1 MB answer)', () => {
    const conversation = conversationsOf(
      '    prompt: { input_tokens: 30 }\n    session: { turns: 2, user_tokens: 5 }\n',
    )(0);
    const started = performance.now();
    const step = conversation.next(text('x'.repeat(1_000_000)));
    // A raw BPE count of one 1 MB pretoken is quadratic (hours); the estimate is immediate.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(step!.plan.expectedInputTokens).toBe(30 + 5 + 250_000);
  });
});
