/**
 * Seeded log probabilities for generated tokens: a logprob <= 0 per token and, when top_logprobs > 0,
 * that many alternatives in descending order with the chosen token first (it is the most likely one,
 * as greedy decoding would have it). The alternatives are distinct outcomes of one distribution, so their
 * probabilities add up to at most 1: each takes a share of what the ones before it left. The chosen
 * token's logprob is drawn from one Rng and the alternatives from another, so how many alternatives are
 * asked never changes a logprob; both are the plan's own, so asking for logprobs never changes the text.
 */
import type { Rng } from '../../util/rng.js';
import { tokenVocabulary } from '../../util/token-text.js';

/** A token's logprob and its top alternatives (the chosen token first). */
export interface TokenLogprobs {
  readonly logprob: number;
  readonly top: readonly { readonly token: string; readonly logprob: number }[];
}

/** The two draws of a token's logprobs: the chosen token's, and its alternatives' (apart: see above). */
export interface LogprobRngs {
  readonly chosen: Rng;
  readonly alternatives: Rng;
}

const NO_ALTERNATIVES: readonly { readonly token: string; readonly logprob: number }[] = Object.freeze([]);

/** The probability left to alternatives when the chosen token is (nearly) certain: never exactly none. */
const LEAST_REMAINING = 1e-12;

/** Five decimals: plenty for a logprob, and short on the wire. */
function round(value: number): number {
  const rounded = Math.round(value * 1e5) / 1e5;
  return rounded === 0 ? 0 : rounded;
}

/**
 * Logprobs of one token. `greedy` (temperature 0) keeps the chosen token very likely.
 */
export function tokenLogprobs(rngs: LogprobRngs, token: string, topCount: number, greedy: boolean): TokenLogprobs {
  const u = rngs.chosen.next();
  const exact = greedy ? -0.05 * u * u * u : -2.5 * u * u;
  const logprob = round(exact);
  if (topCount <= 0) return { logprob, top: NO_ALTERNATIVES };
  const rng = rngs.alternatives;
  const words = tokenVocabulary().words;
  const top: { token: string; logprob: number }[] = [{ token, logprob }];
  // Probability not taken by the chosen token (expm1 keeps it exact when the token is nearly certain).
  let remaining = Math.max(-Math.expm1(exact), LEAST_REMAINING);
  let previous = Math.exp(exact);
  let index = rng.int(0, words.length - 1);
  while (top.length < topCount) {
    const candidate = words[index]!;
    index = (index + 1) % words.length;
    if (candidate === token) continue;
    // Less likely than the one before it, and a share (30% to 90%) of what is left.
    const probability = Math.min(previous, remaining) * (0.3 + 0.6 * rng.next());
    remaining -= probability;
    previous = probability;
    top.push({ token: candidate, logprob: round(Math.log(probability)) });
  }
  return { logprob, top };
}
