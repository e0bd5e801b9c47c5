/**
 * prompt.images in request bodies: the user message becomes its text then the image parts, detail only
 * when the profile sets it, `count` images per kind, picks among `variants` seeded per request (the same in
 * every build), expected input tokens = text + the tile rule, and the images in the workload hash.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import type { ContentPart } from '../../../src/protocol/chat.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/profiles');

function profileOf(promptYaml: string): ResolvedProfile {
  return resolveProfileText(
    `scenarios:\n  - name: s\n    requests: 10\n    prompt: ${promptYaml}\n`,
    resolve(FIXTURES, 'inline.yaml'),
    [],
  );
}

function workloadOf(profile: ResolvedProfile) {
  const resolved = resolveGroupModels(profile, 'vision-model');
  return createWorkload(resolved.scenarios[0]!, resolved.groups[0]!);
}

function userParts(body: Record<string, unknown>): ContentPart[] {
  const messages = body.messages as { role: string; content: unknown }[];
  const user = messages.find((m) => m.role === 'user')!;
  expect(Array.isArray(user.content)).toBe(true);
  return user.content as ContentPart[];
}

describe('prompt.images in the workload', () => {
  it('puts the text first, then count images per kind, detail only when set', () => {
    const profile = profileOf(
      '{ input_tokens: 20, images: [{ width: 64, height: 48, count: 2 }, { width: 40, height: 30, format: jpeg, detail: low }] }',
    );
    const textOnly = workloadOf(profileOf('{ input_tokens: 20 }')).next(3);
    const plan = workloadOf(profile).next(3);
    const parts = userParts(plan.body);
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url', 'image_url', 'image_url']);
    // Same text as without images (the words are seeded apart from the images).
    expect(parts[0]).toEqual({ type: 'text', text: (textOnly.body.messages as { content: string }[])[0]!.content });
    const images = parts.slice(1) as Extract<ContentPart, { type: 'image_url' }>[];
    expect(images[0]!.image_url.url).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(images[0]!.image_url).not.toHaveProperty('detail');
    // Two images of one kind are two different variants.
    expect(images[1]!.image_url.url).not.toBe(images[0]!.image_url.url);
    expect(images[2]!.image_url).toEqual({ url: expect.stringMatching(/^data:image\/jpeg;base64,/), detail: 'low' });
    // Text 20 + 2 x (64x48: one tile) + low detail.
    expect(plan.expectedInputTokens).toBe(textOnly.expectedInputTokens + 2 * (85 + 170) + 85);
  });

  it('picks among the variants per request, the same in every build; one variant sends one image', () => {
    const yaml = '{ input_tokens: 8, images: [{ width: 32, height: 32, variants: 3 }] }';
    const urls = (profile: ResolvedProfile) => {
      const workload = workloadOf(profile);
      return Array.from(
        { length: 30 },
        (_, i) => (userParts(workload.next(i).body)[1] as { image_url: { url: string } }).image_url.url,
      );
    };
    const first = urls(profileOf(yaml));
    expect(urls(profileOf(yaml))).toEqual(first);
    expect(new Set(first).size).toBe(3);
    expect(new Set(urls(profileOf('{ input_tokens: 8, images: [{ width: 32, height: 32, variants: 1 }] }'))).size).toBe(
      1,
    );
  });

  it('sends the same images in every group of a scenario (made once), with other text', () => {
    const profile = resolveGroupModels(
      resolveProfileText(
        'scenarios:\n  - name: s\n    requests: 3\n    tiers: [flex, default]\n    prompt: { input_tokens: 8, images: [{ width: 24, height: 24 }] }\n',
        resolve(FIXTURES, 'inline.yaml'),
        [],
      ),
      'vision-model',
    );
    const [flex, standard] = profile.groups.map((group) =>
      userParts(createWorkload(profile.scenarios[0]!, group).next(1).body),
    );
    expect(flex![1]).toEqual(standard![1]);
    expect(flex![0]).not.toEqual(standard![0]);
  });

  it('takes each mix class its own images (or none)', () => {
    const profile = resolveGroupModels(
      resolveProfileText(
        `scenarios:
  - name: s
    requests: 3
    prompt: { input_tokens: 8 }
    mix:
      - { name: small, weight: 1, prompt: { images: [{ width: 16, height: 16 }] } }
      - { name: low, weight: 1, prompt: { images: [{ width: 600, height: 600, detail: low }] } }
      - { name: text, weight: 1 }
`,
        resolve(FIXTURES, 'inline.yaml'),
        [],
      ),
      'vision-model',
    );
    const byClass = Object.fromEntries(
      profile.groups.map((group) => [group.mixClass, createWorkload(profile.scenarios[0]!, group).next(0)]),
    );
    const text = byClass.text!.expectedInputTokens;
    expect(typeof (byClass.text!.body.messages as { content: unknown }[])[0]!.content).toBe('string');
    expect(byClass.small!.expectedInputTokens).toBe(text + 255);
    expect(byClass.low!.expectedInputTokens).toBe(text + 85);
    expect(userParts(byClass.low!.body)[1]).toMatchObject({ image_url: { detail: 'low' } });
  });

  it('adds images to the last user message of a dataset prompt', () => {
    const plan = workloadOf(
      profileOf('{ dataset: { path: prompts.jsonl, field: text }, images: [{ width: 16, height: 16, variants: 1 }] }'),
    ).next(0);
    const messages = plan.body.messages as { role: string; content: unknown }[];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    expect(Array.isArray(messages[lastUser]!.content)).toBe(true);
    expect((messages[lastUser]!.content as ContentPart[]).at(-1)!.type).toBe('image_url');
  });

  it('are part of the workload hash; profiles without images hash as before', () => {
    const plain = workloadHash(profileOf('{ input_tokens: 8 }'));
    const small = workloadHash(profileOf('{ input_tokens: 8, images: [{ width: 32, height: 32 }] }'));
    const large = workloadHash(profileOf('{ input_tokens: 8, images: [{ width: 64, height: 32 }] }'));
    const jpeg = workloadHash(profileOf('{ input_tokens: 8, images: [{ width: 32, height: 32, format: jpeg }] }'));
    expect(new Set([plain, small, large, jpeg]).size).toBe(4);
    expect(workloadHash(profileOf('{ input_tokens: 8, images: [{ width: 32, height: 32 }] }'))).toBe(small);
  });

  it('resolves defaults and shows the kinds in the validate plan', () => {
    const profile = profileOf(
      '{ images: [{ width: 700, height: 500, count: 2, detail: high }, { width: 8, height: 9, format: jpeg, variants: 1 }] }',
    );
    expect(profile.scenarios[0]!.prompt.images).toEqual([
      { width: 700, height: 500, format: 'png', detail: 'high', count: 2, variants: 4 },
      { width: 8, height: 9, format: 'jpeg', detail: null, count: 1, variants: 1 },
    ]);
    expect(profileOf('{ input_tokens: 8 }').scenarios[0]!.prompt).not.toHaveProperty('images');
    expect(formatProfilePlan(profile)).toContain(
      'images 2 x 700x500 png (detail high), 4 variants; 1 x 8x9 jpeg, 1 variant',
    );
  });

  it('refuses bad image kinds, naming the field', () => {
    const problems = profileProblems(
      'scenarios:\n  - name: s\n    requests: 1\n    prompt: { images: [{ width: 0, height: 9000, format: gif, detail: ultra, sizes: 2 }] }\n',
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/scenarios\[0\]\.prompt\.images\[0\]\.width/),
        expect.stringMatching(/scenarios\[0\]\.prompt\.images\[0\]\.height/),
        expect.stringMatching(/scenarios\[0\]\.prompt\.images\[0\]\.format/),
        expect.stringMatching(/scenarios\[0\]\.prompt\.images\[0\]\.detail/),
        expect.stringMatching(/sizes/),
      ]),
    );
  });
});

describe('review fixes: image payload bounds', () => {
  it('refuses a profile whose request bodies or image pools would be too large, before building anything', () => {
    const problems = profileProblems(
      'scenarios:\n  - name: s\n    requests: 1\n    prompt: { images: [{ width: 4096, height: 4096, count: 50, variants: 64 }] }\n',
    );
    expect(problems).toEqual([
      'p.yaml:4:23: scenarios[0].prompt.images: each request would carry about 1867 MiB of images, above the 256 MiB limit: lower count or the sizes, or use format: jpeg (about a tenth of a PNG)',
      'p.yaml:4:23: scenarios[0].prompt.images: the images built for this scenario (variants of each kind) would hold about 2389 MiB, above the 1024 MiB limit: lower variants or the sizes, or use format: jpeg',
    ]);
    // The same images as JPEG (about a tenth) pass; a mix class's images are checked too.
    expect(() =>
      profileOf('{ images: [{ width: 4096, height: 4096, count: 50, format: jpeg, variants: 1 }] }'),
    ).not.toThrow();
    expect(
      profileProblems(
        'scenarios:\n  - name: s\n    requests: 1\n    mix: [{ name: a, weight: 1, prompt: { images: [{ width: 4096, height: 4096, count: 8, variants: 1 }] } }]\n',
      ),
    ).toHaveLength(1);
  });

  it('warns when the built images make bodies above 32 MiB (the emulator refuses them)', () => {
    const workload = workloadOf(
      profileOf('{ input_tokens: 8, images: [{ width: 2048, height: 2048, count: 4, variants: 1 }] }'),
    );
    const warnings = workload.warnings?.() ?? [];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^scenario s: prompt\.images make request bodies with up to \d+\.\d MiB of image data; the embedded emulator refuses bodies above 32\.0 MiB/,
    );
    expect(
      workloadOf(profileOf('{ input_tokens: 8, images: [{ width: 64, height: 64 }] }')).warnings?.() ?? [],
    ).toEqual([]);
  }, 60_000);
});
