/**
 * Runs with prompt.images end to end. Against the emulator (in this process): every request's input_tokens in
 * summary.json is its text tokens plus its images' tokens by the tile rule, exactly (worked by hand here).
 * Against a purpose-built server that records what it received: each image part is a data URL whose bytes
 * decode (pngjs, jpeg-js) to the asked size and format, with detail only where the profile sets it.
 */
import { join } from 'node:path';
import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { startVllmLikeServer, type VllmLikeServer } from '../../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-images-');
const emulators = useInProcessEmulators();

/** The emulator's text part of a one-user-message prompt: reply priming 3, message 3, the role, the text. */
const textTokens = (text: number) => 3 + 3 + countTokens('user') + text;

describe('images against the embedded emulator', () => {
  it('input_tokens = text tokens + image tokens by the tile rule, for every request', { timeout: 60_000 }, async () => {
    const out = join(folder.dir, 'emulator');
    const profile = folder.writeProfile(
      'emulator',
      `name: images-emulator
defaults:
  models: [vision-17b]
  load: { mode: concurrency, concurrency: 2 }
  requests: 6
  request: { max_completion_tokens: 8 }
  prompt: { input_tokens: 32 }
scenarios:
  - name: two-png
    prompt: { images: [{ width: 700, height: 500, count: 2 }] }
  - name: jpeg-low-and-png
    prompt: { images: [{ width: 1600, height: 1200, format: jpeg, detail: low, variants: 1 }, { width: 300, height: 300, detail: high }] }
`,
    );
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const groups = readSummary(out).groups;
    // variants: 1 on the big JPEG: the tokens do not depend on the pixels, and encoding four 1600x1200
    // variants was the most CPU of the file.
    // 700x500: within 2048 and short side under 768, so 2 x 1 tiles: 85 + 2 x 170 = 425, twice.
    // 1600x1200 low: 85. 300x300: one tile, 255.
    const expected: Record<string, number> = {
      'two-png/vision-17b/-': textTokens(32) + 2 * 425,
      'jpeg-low-and-png/vision-17b/-': textTokens(32) + 85 + 255,
    };
    expect(groups.map((g) => g.key).sort()).toEqual(Object.keys(expected).sort());
    for (const group of groups) {
      expect(group.requests.ok, group.key).toBe(6);
      expect(group.metrics.input_tokens!.min, group.key).toBe(expected[group.key]);
      expect(group.metrics.input_tokens!.max, group.key).toBe(expected[group.key]);
    }
  });
});

describe('images as a server receives them', () => {
  let server: VllmLikeServer;
  beforeAll(async () => {
    server = await startVllmLikeServer({ tokens: 4 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('each image part is a data URL of the asked format and size', { timeout: 60_000 }, async () => {
    const out = join(folder.dir, 'recorded');
    const profile = folder.writeProfile(
      'recorded',
      `name: images-recorded
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 2 }
    requests: 5
    prompt:
      input_tokens: 16
      images: [{ width: 333, height: 222, format: jpeg }, { width: 64, height: 640, detail: high, count: 2 }]
`,
    );
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(0);
    expect(server.bodies).toHaveLength(5);
    for (const body of server.bodies) {
      const [user] = body.messages as {
        role: string;
        content: { type: string; text?: string; image_url?: { url: string; detail?: string } }[];
      }[];
      expect(user!.role).toBe('user');
      expect(user!.content.map((p) => p.type)).toEqual(['text', 'image_url', 'image_url', 'image_url']);
      const [jpeg, png1, png2] = user!.content.slice(1).map((p) => p.image_url!);
      const jpegMatch = /^data:image\/jpeg;base64,([A-Za-z0-9+/]+=*)$/.exec(jpeg!.url);
      expect(jpegMatch).not.toBeNull();
      const decodedJpeg = decodeJpeg(Buffer.from(jpegMatch![1]!, 'base64'), { useTArray: true });
      expect([decodedJpeg.width, decodedJpeg.height]).toEqual([333, 222]);
      expect(jpeg).not.toHaveProperty('detail');
      for (const png of [png1!, png2!]) {
        const pngMatch = /^data:image\/png;base64,([A-Za-z0-9+/]+=*)$/.exec(png.url);
        expect(pngMatch).not.toBeNull();
        const decodedPng = PNG.sync.read(Buffer.from(pngMatch![1]!, 'base64'));
        expect([decodedPng.width, decodedPng.height]).toEqual([64, 640]);
        expect(png.detail).toBe('high');
      }
      expect(png1!.url).not.toBe(png2!.url);
    }
  });
});
