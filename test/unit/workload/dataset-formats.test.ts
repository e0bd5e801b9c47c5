import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InferbenchError } from '../../../src/errors.js';
import { DATASET_DEFAULTS } from '../../../src/profile/sections/dataset.js';
import type { DatasetSpec } from '../../../src/profile/resolved-profile.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { loadDataset } from '../../../src/workload/dataset/dataset.js';
import { openingSystemMessages, userTurns } from '../../../src/workload/dataset/dataset-turns.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-dataset-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SAMPLE = resolve(import.meta.dirname, '../../../profiles/datasets/sharegpt-sample.json');

let files = 0;
function file(text: string, ext = 'json'): string {
  const path = join(dir, `d${files++}.${ext}`);
  writeFileSync(path, text);
  return path;
}

function spec(path: string, more: Partial<DatasetSpec> = {}): DatasetSpec {
  return {
    path,
    field: 'prompt',
    ...DATASET_DEFAULTS,
    ...more,
  };
}

/** The BAD_PROFILE error loading `path` throws. */
function errorOf(path: string, more: Partial<DatasetSpec> = {}): InferbenchError {
  try {
    loadDataset(spec(path, more));
  } catch (error) {
    expect(error).toBeInstanceOf(InferbenchError);
    expect((error as InferbenchError).code).toBe('BAD_PROFILE');
    return error as InferbenchError;
  }
  throw new Error('expected an error');
}

const conv = (...turns: [string, string][]) => ({ conversations: turns.map(([from, value]) => ({ from, value })) });

describe('loadDataset: ShareGPT', () => {
  it('reads a pretty-printed JSON array, maps roles and sends the first user turn with the system turn before it', () => {
    const path = file(
      JSON.stringify(
        [
          conv(['system', 'Be brief.'], ['human', 'Hi there'], ['gpt', 'Hello, how can I help?'], ['human', 'Bye']),
          conv(['gpt', 'A greeting first'], ['human', 'Question?'], ['gpt', 'Answer.']),
        ],
        null,
        2,
      ),
    );
    const { format, entries } = loadDataset(spec(path));
    expect(format).toBe('sharegpt');
    expect(entries.map((e) => e.line)).toEqual([2, 22]);
    const [first, second] = entries;
    expect(first!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi there' },
      { role: 'assistant', content: 'Hello, how can I help?' },
      { role: 'user', content: 'Bye' },
    ]);
    expect(first!.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi there' },
    ]);
    expect(first!.tokens).toBe(countTokens('Be brief.') + countTokens('Hi there'));
    expect(first!.answerTokens).toBe(countTokens('Hello, how can I help?'));
    // The first user turn, not the first turn; its answer is the assistant turn after it.
    expect(second!.prompt).toEqual([{ role: 'user', content: 'Question?' }]);
    expect(second!.answerTokens).toBe(countTokens('Answer.'));
  });

  it('reads ShareGPT records from JSONL and from a one-line JSON array alike', () => {
    const records = [conv(['human', 'one'], ['gpt', 'uno']), conv(['human', 'two'], ['gpt', 'dos'])];
    const jsonl = loadDataset(spec(file(records.map((r) => JSON.stringify(r)).join('\n'), 'jsonl')));
    const array = loadDataset(spec(file(JSON.stringify(records))));
    expect(jsonl.format).toBe('sharegpt');
    expect(array.entries.map((e) => e.messages)).toEqual(jsonl.entries.map((e) => e.messages));
    expect(jsonl.entries.map((e) => e.line)).toEqual([1, 2]);
    expect(array.entries.map((e) => e.line)).toEqual([1, 1]);
  });

  it('keeps a conversation without a user turn as an entry with an empty prompt (the filters drop it)', () => {
    const { entries } = loadDataset(spec(file(JSON.stringify([conv(['gpt', 'only me']), conv()]))));
    expect(entries.map((e) => e.prompt)).toEqual([[], []]);
    expect(entries[0]!.answerTokens).toBeNull();
  });

  it('exports the user turns of a conversation in order, for multi-turn sessions', () => {
    const { entries } = loadDataset(spec(SAMPLE));
    const bakery = entries.find((e) => userTurns(e)[0]?.startsWith('Give me three name ideas'))!;
    expect(userTurns(bakery)).toEqual([
      'Give me three name ideas for a bakery that specialises in sourdough.',
      'I like the second one. Can you write a short tagline for it?',
      'Make it a bit more playful.',
    ]);
    expect(openingSystemMessages(bakery)).toEqual([]);
    const tutor = entries.find((e) => userTurns(e)[0] === 'How do I solve 2x + 6 = 14?')!;
    expect(openingSystemMessages(tutor)).toEqual([
      { role: 'system', content: 'You are a helpful tutor for high school mathematics. Explain step by step.' },
    ]);
    expect(userTurns(tutor)).toHaveLength(2);
  });

  it('reads the shipped sample: 40 conversations, multi-turn ones, five with a system turn, one without a user turn', () => {
    const { format, entries } = loadDataset(spec(SAMPLE));
    expect(format).toBe('sharegpt');
    expect(entries).toHaveLength(40);
    expect(entries.filter((e) => userTurns(e).length >= 2).length).toBeGreaterThanOrEqual(10);
    expect(entries.filter((e) => e.messages[0]!.role === 'system')).toHaveLength(5);
    expect(entries.filter((e) => e.prompt.length === 0)).toHaveLength(1);
  });
});

describe('loadDataset: OpenAI-style records and format detection', () => {
  it('reads JSONL of messages arrays, text fields and messages fields (as before)', () => {
    const path = file(
      [
        '[{"role": "user", "content": "a"}]',
        '{"prompt": "b"}',
        '',
        '{"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "c"}]}',
      ].join('\n'),
      'jsonl',
    );
    const { format, entries } = loadDataset(spec(path));
    expect(format).toBe('openai');
    expect(entries.map((e) => e.line)).toEqual([1, 2, 4]);
    expect(entries.map((e) => e.prompt)).toEqual([
      [{ role: 'user', content: 'a' }],
      [{ role: 'user', content: 'b' }],
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'c' },
      ],
    ]);
  });

  it('reads a one-line JSONL file whose line is a messages array as one entry', () => {
    const { entries } = loadDataset(spec(file('[{"role": "user", "content": "only"}]\n', 'jsonl')));
    expect(entries.map((e) => e.prompt)).toEqual([[{ role: 'user', content: 'only' }]]);
  });

  it('with output_tokens: dataset, a final assistant message is the answer, not sent', () => {
    const line =
      '[{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue, like the sea."}]';
    const path = file(line, 'jsonl');
    const sent = loadDataset(spec(path)).entries[0]!;
    expect(sent.prompt).toHaveLength(2);
    expect(sent.answerTokens).toBeNull();
    const answered = loadDataset(spec(path, { outputTokens: 'dataset' })).entries[0]!;
    expect(answered.prompt).toEqual([{ role: 'user', content: 'Name a colour.' }]);
    expect(answered.answerTokens).toBe(countTokens('Blue, like the sea.'));
    expect(answered.messages).toHaveLength(2);
  });

  it('refuses a file that mixes the formats, naming the line of the first odd record', () => {
    const path = file(
      [
        JSON.stringify(conv(['human', 'x'], ['gpt', 'y'])),
        JSON.stringify(conv(['human', 'z'])),
        '{"prompt": "p"}',
      ].join('\n'),
      'jsonl',
    );
    expect(errorOf(path).message).toBe(
      `${path}:3: a openai record, but line 1 is a sharegpt record: a dataset holds one format`,
    );
    // An explicit format reads the file as that one: the odd record fails with its own line.
    expect(errorOf(path, { format: 'sharegpt' }).message).toBe(
      `${path}:3: expected a ShareGPT record with a "conversations" array`,
    );
    expect(errorOf(path, { format: 'openai' }).message).toBe(`${path}:1: no "prompt" field holding text or messages`);
  });
});

describe('loadDataset: bad files name the file and line', () => {
  it('bad JSON in a JSON array element, at the element', () => {
    const path = file('[\n  {"conversations": []},\n  {"conversations": [}\n]\n');
    expect(errorOf(path).message).toBe(`${path}:3: not valid JSON (an element of the JSON array)`);
  });

  it('an array that never closes, and text after the array', () => {
    const open = file('[\n  {"conversations": []},\n  {"conversations": [\n');
    expect(errorOf(open).message).toBe(`${open}:3: the JSON array is not closed (the file ends inside it)`);
    const after = file('[\n  {"conversations": []}\n]\n{"x": 1}\n');
    expect(errorOf(after).message).toBe(`${after}:4: text after the end of the JSON array`);
    const comma = file('[\n  {"conversations": []},\n]\n');
    expect(errorOf(comma).message).toMatch(new RegExp(`^${path2re(comma)}:3: an empty element`));
  });

  it('bad JSON on a JSONL line', () => {
    const path = file('{"conversations": []}\n{"conversations": \n', 'jsonl');
    expect(errorOf(path).message).toBe(`${path}:2: not valid JSON`);
  });

  it('wrong ShareGPT shapes: conversations not an array, a turn without from or value, an unknown role', () => {
    const notArray = file('[\n{"conversations": {"from": "human"}}\n]');
    expect(errorOf(notArray).message).toBe(`${notArray}:2: "conversations" is not an array`);
    const noValue = file(
      '[\n{"conversations": [{"from": "human", "value": "ok"}]},\n{"conversations": [{"from": "gpt"}]}\n]',
    );
    expect(errorOf(noValue).message).toBe(`${noValue}:3: conversations[0].value is not a string`);
    const role = file(JSON.stringify([conv(['human', 'a'], ['robot', 'b'])]));
    expect(errorOf(role).message).toBe(
      `${role}:1: conversations[1].from is "robot": expected "human", "gpt" or "system"`,
    );
  });

  it('an empty file, and a file that does not exist', () => {
    const empty = file('[]');
    expect(errorOf(empty).message).toBe(`dataset ${empty} has no prompts`);
    expect(errorOf(join(dir, 'missing.json')).message).toMatch(/^cannot read dataset .*missing\.json: ENOENT$/);
  });

  it('non-ASCII text survives the byte-level split of a JSON array', () => {
    const path = file(
      JSON.stringify([conv(['human', 'Où est la gare ? ¿Dónde? 駅はどこ, [ ] { } , "'], ['gpt', 'ok'])]),
    );
    expect(loadDataset(spec(path)).entries[0]!.prompt).toEqual([
      { role: 'user', content: 'Où est la gare ? ¿Dónde? 駅はどこ, [ ] { } , "' },
    ]);
  });
});

function path2re(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
