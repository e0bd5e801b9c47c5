/**
 * `prompt.images`: every request's user message becomes content parts, its text first and then the
 * scenario's images, `{ type: "image_url", image_url: { url: "data:image/png;base64,...", detail? } }`.
 *
 * The images are made when the workload is built (synthetic-image.ts): per image kind a pool of `variants`
 * distinct images, each request picking where in the pool its images start (seeded per request), so
 * requests do not all send one image and request i sends the same images in every run. A request then
 * only puts prebuilt part objects into a new content array: no encoding, no base64, no string copies.
 *
 * The image tokens a request adds are counted by OpenAI's rule (protocol/image-tokens.ts), the same for
 * every request, and added to its expected input tokens: the estimate when a server sends no usage.
 */
import { InferbenchError } from '../errors.js';
import { LARGE_BODY_IMAGE_BYTES, MAX_BODY_IMAGE_BYTES } from '../profile/sections/images.js';
import type { ChatMessage, ContentPart, ImagePart } from '../protocol/chat.js';
import { imageTokens } from '../protocol/image-tokens.js';
import type { ImageSpec, ResolvedScenario } from '../profile/resolved-profile.js';
import type { BuiltPrompt, PromptSource } from './prompt-sources.js';
import { requestRng, streamSeed } from './request-seed.js';
import type { SyntheticImage } from './synthetic-image.js';
import { syntheticImage } from './synthetic-image.js';

const MIB = 1024 * 1024;

/** One image kind's prebuilt parts (one per variant) and how many of them a request carries. */
interface KindPool {
  readonly parts: readonly ImagePart[];
  readonly count: number;
  /** Held so that other workloads of the process reuse them rather than encode them again (synthetic-image.ts). */
  readonly images: readonly SyntheticImage[];
}

/**
 * The seed of variant `variant` of a size and format: the scenario seed, never its name or group, so every
 * scenario and group of one seed shares the images (made once) while the text around them differs.
 */
function imageSeed(seed: number, spec: ImageSpec, variant: number): number {
  return streamSeed(seed, 'image', `${spec.width}x${spec.height}`, spec.format, String(variant));
}

function kindPool(seed: number, spec: ImageSpec): KindPool {
  const images = Array.from({ length: spec.variants }, (_, variant) =>
    syntheticImage(spec.width, spec.height, spec.format, imageSeed(seed, spec, variant)),
  );
  const parts = images.map((image): ImagePart => {
    const imageUrl = spec.detail === null ? { url: image.url } : { url: image.url, detail: spec.detail };
    return Object.freeze({ type: 'image_url', image_url: Object.freeze(imageUrl) });
  });
  return { parts, count: spec.count, images };
}

/** `content` with `images` after it; a text part only for non-empty text (an empty one is not valid). */
function withImageParts(content: ChatMessage['content'], images: readonly ImagePart[]): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [...images] : [{ type: 'text', text: content }, ...images];
  return [...((content ?? []) as ContentPart[]), ...images];
}

/** `messages` with the images in the last user message (a new user message when there is none). */
function attach(messages: readonly ChatMessage[], images: readonly ImagePart[]): ChatMessage[] {
  const out = messages.slice();
  let last = out.length - 1;
  while (last >= 0 && out[last]!.role !== 'user') last--;
  if (last < 0) out.push({ role: 'user', content: [...images] });
  else
    out[last] = {
      ...(out[last] as ChatMessage & { role: 'user' }),
      content: withImageParts(out[last]!.content, images),
    };
  return out;
}

/**
 * The most image data one request body carries (each kind's `count` images at its largest variant's data
 * URL, one byte a character): above MAX_BODY_IMAGE_BYTES a BAD_PROFILE error (the profile check,
 * profile/sections/images.ts, estimates it before anything is built; this measures what was built); above
 * LARGE_BODY_IMAGE_BYTES a warning (the emulator and many servers refuse bodies that large).
 */
function checkBodyImageBytes(scenario: string, pools: readonly KindPool[]): string | null {
  const bytes = pools.reduce((sum, pool) => sum + pool.count * Math.max(...pool.images.map((i) => i.url.length)), 0);
  const mib = (n: number): string => `${(n / MIB).toFixed(1)} MiB`;
  if (bytes > MAX_BODY_IMAGE_BYTES)
    throw new InferbenchError(
      'BAD_PROFILE',
      `scenario ${scenario}: prompt.images make request bodies with up to ${mib(bytes)} of image data, above the ${mib(MAX_BODY_IMAGE_BYTES)} limit`,
      { hint: 'lower prompt.images[].count or the sizes, or use format: jpeg (about a tenth of a PNG)' },
    );
  return bytes > LARGE_BODY_IMAGE_BYTES
    ? `scenario ${scenario}: prompt.images make request bodies with up to ${mib(bytes)} of image data; the embedded emulator refuses bodies above ${mib(LARGE_BODY_IMAGE_BYTES)}, and many servers have a limit of that order`
    : null;
}

/**
 * `source` with the scenario's images added to each prompt, or `source` itself when the prompt has none.
 * Builds every image of the scenario now (the costly part), before the first request.
 */
export function withImages(source: PromptSource, scenario: ResolvedScenario): PromptSource {
  const specs = scenario.prompt.images;
  if (specs === undefined || specs.length === 0) return source;
  const pools = specs.map((spec) => kindPool(scenario.seed, spec));
  const warning = checkBodyImageBytes(scenario.name, pools);
  const tokens = specs.reduce((sum, spec) => sum + spec.count * imageTokens(spec.width, spec.height, spec.detail), 0);
  const pickBase = streamSeed(scenario.seed, scenario.name, 'images');
  return {
    ...(source.dataset ? { dataset: source.dataset } : {}),
    ...(source.laterTurns ? { laterTurns: (index: number) => source.laterTurns!(index) } : {}),
    warnings: () => [...(source.warnings?.() ?? []), ...(warning === null ? [] : [warning])],
    build(index, lengths): BuiltPrompt {
      const prompt = source.build(index, lengths);
      const rng = requestRng(pickBase, index);
      const images: ImagePart[] = [];
      for (const pool of pools) {
        // Consecutive variants from a seeded start: a request's images of one kind differ while count <= variants.
        const start = rng.int(0, pool.parts.length - 1);
        for (let k = 0; k < pool.count; k++) images.push(pool.parts[(start + k) % pool.parts.length]!);
      }
      return {
        ...prompt,
        messages: attach(prompt.messages, images),
        expectedInputTokens: prompt.expectedInputTokens + tokens,
      };
    },
  };
}
