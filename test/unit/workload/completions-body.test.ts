/**
 * The completions body from the chat body the workload built: the one user text as `prompt`,
 * max_completion_tokens as max_tokens, every other field as given, the chat body untouched; a prompt of
 * several messages refused with BAD_PROFILE; a dataset entry that is not one user text named by its
 * line when the workload is built, before anything is sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { completionsBody } from '../../../src/workload/apis/completions-body.js';
import { createWorkload } from '../../../src/workload/create-workload.js';

describe('completionsBody', () => {
  it('sends the user text as prompt and max_completion_tokens as max_tokens', () => {
    const chat = {
      model: 'm',
      messages: [{ role: 'user', content: 'hello there' }],
      max_completion_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      service_tier: 'flex',
      prompt_cache_key: 'p3',
    };
    const before = structuredClone(chat);
    expect(completionsBody(chat)).toEqual({
      model: 'm',
      prompt: 'hello there',
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      service_tier: 'flex',
      prompt_cache_key: 'p3',
    });
    expect(chat).toEqual(before);
    expect(completionsBody({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).toEqual({
      model: 'm',
      prompt: 'x',
    });
  });

  it('refuses a prompt that is not one user text', () => {
    for (const messages of [
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      [{ role: 'assistant', content: 'hi' }],
      [],
    ])
      expect(() => completionsBody({ model: 'm', messages })).toThrow(
        expect.objectContaining({
          code: 'BAD_PROFILE',
          message: expect.stringContaining('api: completions sends one text'),
        }),
      );
  });
});

describe('a dataset with api: completions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-completions-dataset-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const workload = (lines: string[]) => {
    writeFileSync(join(dir, 'd.jsonl'), `${lines.join('\n')}\n`);
    const profile = resolveProfileText(
      'scenarios:\n  - { name: s, api: completions, models: [m], requests: 4, prompt: { dataset: { path: d.jsonl } } }\n',
      join(dir, 'p.yaml'),
    );
    return createWorkload(profile.scenarios[0]!, profile.groups[0]!);
  };

  it('sends each entry text as the prompt', () => {
    const built = workload(['{"prompt":"Tell me about foxes"}', '{"prompt":"Tell me about dogs"}']);
    const prompts = [0, 1, 2, 3].map((i) => built.next(i).body.prompt);
    expect(new Set(prompts)).toEqual(new Set(['Tell me about foxes', 'Tell me about dogs']));
  });

  it('names the line of an entry that is not one user text, when the workload is built', () => {
    expect(() =>
      workload([
        '{"prompt":"Tell me about foxes"}',
        '{"prompt":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}',
      ]),
    ).toThrow(
      expect.objectContaining({
        code: 'BAD_PROFILE',
        message: `${join(dir, 'd.jsonl')}:2: api: completions cannot send this entry: a completions prompt is one text, but this prompt has 2 messages`,
      }),
    );
  });
});
