/**
 * Images over real sockets: the emulator's vision model reports prompt_tokens and usage.image_tokens by
 * each image's real size (streamed and not), answers 400 invalid_request_error naming the field for data
 * that is not an image, keeps serving afterwards, caches an image session's earlier turns by their tokens,
 * and a text model refuses image parts as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { encodeSyntheticImage } from '../../../src/workload/synthetic-image.js';
import { chat, completionBody, KEY, parseSse } from './support.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY] });
});
afterAll(async () => {
  await emulator.close();
});

const url = (w: number, h: number, format: 'png' | 'jpeg') =>
  `data:image/${format};base64,${encodeSyntheticImage(w, h, format, 2).toString('base64')}`;

const ask = (model: string, imageUrl: Record<string, unknown>, stream = false) =>
  chat(emulator.url, {
    model,
    stream,
    max_completion_tokens: 4,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe it' },
          { type: 'image_url', image_url: imageUrl },
        ],
      },
    ],
  });

const TEXT = 3 + 3 + countTokens('user') + countTokens('Describe it');

describe('emulator: images', () => {
  it('bills the image by its size in usage, streamed or not', async () => {
    // 1920x1080 -> 1365x768: 3 x 2 tiles = 85 + 6 x 170.
    const large = await ask('vision-17b', { url: url(1920, 1080, 'jpeg') });
    expect(large.status).toBe(200);
    expect(completionBody(large).usage).toMatchObject({ prompt_tokens: TEXT + 1105, image_tokens: 1105 });
    const low = await ask('vision-17b', { url: url(1920, 1080, 'jpeg'), detail: 'low' }, true);
    expect(low.status).toBe(200);
    const last = parseSse(low.text)
      .filter((e) => typeof e === 'object' && e !== null && 'usage' in e)
      .at(-1) as {
      usage: { prompt_tokens: number; image_tokens: number };
    };
    expect(last.usage).toMatchObject({ prompt_tokens: TEXT + 85, image_tokens: 85 });
  });

  it('answers 400 for data that is not an image, and keeps serving', async () => {
    const bad = await ask('vision-17b', {
      url: `data:image/png;base64,${Buffer.from('plain text').toString('base64')}`,
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ type: 'invalid_request_error', param: 'messages[0].content[1].image_url.url' });
    const good = await ask('vision-17b', { url: url(64, 64, 'png') });
    expect(good.status).toBe(200);
    expect(completionBody(good).usage.image_tokens).toBe(255);
  });

  it("caches an image session's first turn on its second by image tokens, not by base64 characters", async () => {
    const photo = { type: 'image_url', image_url: { url: url(1280, 720, 'jpeg') } };
    const first = [{ role: 'user', content: [{ type: 'text', text: 'What is in this photo?' }, photo] }];
    const turn = (messages: unknown[]) =>
      chat(emulator.url, { model: 'vision-17b', max_completion_tokens: 4, prompt_cache_key: 'photo-1', messages });
    const one = completionBody(await turn(first)).usage;
    const two = completionBody(
      await turn([
        ...first,
        { role: 'assistant', content: 'A street at dusk with lamps reflected in puddles. '.repeat(8) },
        { role: 'user', content: 'Which colours dominate, and where is the light coming from? '.repeat(6) },
      ]),
    ).usage;
    expect(one.image_tokens).toBe(1105);
    expect(two.prompt_tokens - one.prompt_tokens).toBeGreaterThan(128);
    // Turn 1's prompt in whole 128-token blocks; the share of characters (99% base64) said nearly all of turn 2.
    expect(two.prompt_tokens_details?.cached_tokens).toBe(Math.floor(one.prompt_tokens / 128) * 128);
  });

  it('a text model refuses image parts', async () => {
    const res = await ask('small-fast-8b', { url: url(64, 64, 'png') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: 'invalid_request_error', param: 'messages[0].content[1]' });
  });
});
