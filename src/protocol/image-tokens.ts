/**
 * What an image part costs in prompt tokens, by OpenAI's published rule for its vision models (the API
 * spec gives no formula of its own; it only reports `usage.image_tokens`). One definition for the emulator,
 * which bills images by it, and the workload, which estimates a prompt's input tokens by it.
 *
 * low detail: a flat 85 tokens. high and auto: the image is scaled down to fit within 2048 x 2048, then
 * down until its shortest side is at most 768 px (never up), and each 512 px tile of the result costs
 * 170 tokens on top of the 85 base tokens. `auto` is counted as `high`.
 * https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */

/** The `detail` of an image part: how closely the model looks at it. */
export type ImageDetail = 'auto' | 'low' | 'high';
export const IMAGE_DETAILS: readonly ImageDetail[] = ['auto', 'low', 'high'];

/** Tokens of every image (the whole cost of a low-detail one). */
export const IMAGE_BASE_TOKENS = 85;
/** Tokens of each 512 px tile of a high-detail image. */
export const IMAGE_TILE_TOKENS = 170;
const TILE_PX = 512;
const FIT_PX = 2048;
const SHORT_SIDE_PX = 768;

/** Scales (long, short) down so that `long` is at most `limit`, in whole pixels (at least 1). */
function fitLongSide(long: number, short: number, limit: number): [number, number] {
  return long <= limit ? [long, short] : [limit, Math.max(1, Math.floor((short * limit) / long))];
}

/** Prompt tokens of one `width` x `height` image at `detail` (null: not given, which is `auto`). */
export function imageTokens(width: number, height: number, detail: ImageDetail | null = null): number {
  if (detail === 'low') return IMAGE_BASE_TOKENS;
  // Long and short sides: the rule is symmetric in width and height.
  let [long, short] = width >= height ? [width, height] : [height, width];
  [long, short] = fitLongSide(long, short, FIT_PX);
  if (short > SHORT_SIDE_PX) [short, long] = [SHORT_SIDE_PX, Math.max(1, Math.floor((long * SHORT_SIDE_PX) / short))];
  return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * Math.ceil(long / TILE_PX) * Math.ceil(short / TILE_PX);
}
