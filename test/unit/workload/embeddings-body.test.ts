/**
 * The embeddings body from the chat bodies the workload built: `{ model, input, encoding_format: "float" }`
 * with the user text (or, inputs_per_request, the texts in order) as input, `user` and request_extra as
 * given, no generation field; a prompt that is not one user text refused; the workload's batches
 * (request i of N inputs = prompts iN..iN+N-1, expected tokens summed) and a dataset entry named by line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { embeddingsBatchBody, embeddingsBody } from '../../../src/workload/apis/embeddings-body.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';

const chat = (text: string) => ({
  model: 'm',
  messages: [{ role: 'user', content: text }],
  stream: true,
  stream_options: { include_usage: true },
  user: 'u1',
  dimensions: 256,
});

describe('embeddingsBody', () => {
  it('sends the user text as input, asks for floats, keeps user and request_extra, drops the stream fields', () => {
    const body = chat('hello there');
    const before = structuredClone(body);
    expect(embeddingsBody(body)).toEqual({
      model: 'm',
      input: 'hello there',
      encoding_format: 'float',
      user: 'u1',
      dimensions: 256,
    });
    expect(body).toEqual(before);
    // request_extra may ask for base64 (the reader reads both).
    expect(embeddingsBody({ ...chat('x'), encoding_format: 'base64' }).encoding_format).toBe('base64');
  });

  it('sends several prompts as the input array, in order', () => {
    expect(embeddingsBatchBody([chat('a'), chat('b'), chat('c')])).toEqual({
      model: 'm',
      input: ['a', 'b', 'c'],
      encoding_format: 'float',
      user: 'u1',
      dimensions: 256,
    });
  });

  it('refuses a prompt that is not one user text', () => {
    const system = {
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    };
    for (const body of [system, { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }])
      expect(() => embeddingsBody(body)).toThrow(
        expect.objectContaining({ code: 'BAD_PROFILE', message: expect.stringContaining('api: embeddings') }),
      );
    expect(() => embeddingsBatchBody([chat('a'), system])).toThrow(
      expect.objectContaining({ message: expect.stringContaining('this prompt has 2 messages') }),
    );
  });
});

describe('an embeddings workload', () => {
  const profile = (extra: string) =>
    resolveProfileText(
      `scenarios:\n  - { name: s, api: embeddings, models: [m], requests: 4, seed: 7, prompt: { input_tokens: { dist: uniform, min: 10, max: 40 } }${extra} }\n`,
      'p.yaml',
    );
  const workloadOf = (extra: string) => {
    const p = profile(extra);
    return createWorkload(p.scenarios[0]!, p.groups[0]!);
  };

  it('builds request i of N inputs from prompts iN..iN+N-1 of the one-input workload, token-exact', () => {
    const one = workloadOf('');
    const four = workloadOf(', inputs_per_request: 4');
    const count = (text: unknown) => o200kTokenizer().count(text as string);
    for (const index of [0, 3]) {
      const plan = four.next(index);
      const singles = [0, 1, 2, 3].map((k) => one.next(index * 4 + k));
      expect(plan.inputs).toBe(4);
      expect(plan.body.input).toEqual(singles.map((single) => single.body.input));
      expect(plan.expectedInputTokens).toBe(singles.reduce((sum, single) => sum + single.expectedInputTokens, 0));
      expect((plan.body.input as string[]).reduce((sum: number, text) => sum + count(text), 0)).toBe(
        plan.expectedInputTokens,
      );
    }
    // Lengths vary per input (each prompt its own seeded length).
    expect(new Set((four.next(0).body.input as string[]).map(count)).size).toBeGreaterThan(1);
    expect(one.next(0).inputs).toBe(1);
    expect(typeof one.next(0).body.input).toBe('string');
  });

  const dir = mkdtempSync(join(tmpdir(), 'inferbench-embeddings-dataset-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a without_replacement dataset too small for requests x inputs_per_request', () => {
    writeFileSync(join(dir, 'five.jsonl'), ['a', 'b', 'c', 'd', 'e'].map((t) => `{"prompt":"${t}"}\n`).join(''));
    const p = resolveProfileText(
      'scenarios:\n  - { name: s, api: embeddings, models: [m], requests: 2, inputs_per_request: 3, prompt: { dataset: { path: five.jsonl, sample: without_replacement } } }\n',
      join(dir, 'p.yaml'),
    );
    expect(() => createWorkload(p.scenarios[0]!, p.groups[0]!)).toThrow(
      expect.objectContaining({
        code: 'BAD_PROFILE',
        message: expect.stringContaining(
          'scenario s: 6 prompts (3 inputs per request) with prompt.dataset.sample: without_replacement',
        ),
      }),
    );
    const fits = resolveProfileText(
      'scenarios:\n  - { name: s, api: embeddings, models: [m], requests: 1, inputs_per_request: 5, prompt: { dataset: { path: five.jsonl, sample: without_replacement } } }\n',
      join(dir, 'p.yaml'),
    );
    const body = createWorkload(fits.scenarios[0]!, fits.groups[0]!).next(0).body;
    expect([...(body.input as string[])].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('names the line of a dataset entry that is not one user text, when the workload is built', () => {
    writeFileSync(
      join(dir, 'd.jsonl'),
      '{"prompt":"foxes"}\n{"prompt":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}\n',
    );
    const p = resolveProfileText(
      'scenarios:\n  - { name: s, api: embeddings, models: [m], requests: 4, prompt: { dataset: { path: d.jsonl } } }\n',
      join(dir, 'p.yaml'),
    );
    expect(() => createWorkload(p.scenarios[0]!, p.groups[0]!)).toThrow(
      expect.objectContaining({
        code: 'BAD_PROFILE',
        message: `${join(dir, 'd.jsonl')}:2: api: embeddings cannot send this entry: an embeddings input is one text, but this prompt has 2 messages`,
      }),
    );
  });
});
