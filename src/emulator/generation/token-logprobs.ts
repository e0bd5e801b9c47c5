/**
 * Seeded log probabilities for generated tokens: a logprob <= 0 per token and, when top_logprobs > 0,
 * that many alternatives in descending order with the chosen token first (it is the most likely one,
 * as greedy decoding would have it). Drawn from their own Rng so asking for logprobs never changes the text.
 */
import type { Rng } from '../../util/rng.js';
import { tokenVocabulary } from '../../util/token-text.js';

/** A token's logprob and its top alternatives (the chosen token first). */
export interface TokenLogprobs {
  readonly logprob: number;
  readonly top: readonly { readonly token: string; readonly logprob: number }[];
}

const NO_ALTERNATIVES: readonly { readonly token: string; readonly logprob: number }[] = Object.freeze([]);

/** Five decimals: plenty for a logprob, and short on the wire. */
function round(value: number): number {
  return Math.round(value * 1e5) / 1e5;
}

/**
 * Logprobs of one token. `greedy` (temperature 0) keeps the chosen token very likely.
 */
export function tokenLogprobs(rng: Rng, token: string, topCount: number, greedy: boolean): TokenLogprobs {
  const u = rng.next();
  const logprob = round(greedy ? -0.05 * u * u * u : -2.5 * u * u);
  if (topCount <= 0) return { logprob: logprob === 0 ? 0 : logprob, top: NO_ALTERNATIVES };
  const words = tokenVocabulary().words;
  const top: { token: string; logprob: number }[] = [{ token, logprob }];
  let next = logprob;
  let index = rng.int(0, words.length - 1);
  while (top.length < topCount) {
    const candidate = words[index]!;
    index = (index + 1) % words.length;
    if (candidate === token) continue;
    next = round(next - 0.1 - 1.5 * rng.next());
    top.push({ token: candidate, logprob: next });
  }
  return { logprob, top };
}
