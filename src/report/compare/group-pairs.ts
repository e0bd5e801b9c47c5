/**
 * `compare --pair baseline_group=candidate_group`: which candidate group each baseline group is compared
 * with. Without pairs a group is compared with the group of the same key (`scenario/model/tier`); a pair
 * lets two deployments that name one model differently (vLLM's `llama`, SGLang's `llama-3`) be compared.
 */
import { InferbenchError } from '../../errors.js';

/** One explicit pairing of group keys. */
export interface GroupPair {
  readonly baseline: string;
  readonly candidate: string;
}

/**
 * Parses `--pair` flags and checks them against the runs' group keys. Throws BAD_USAGE (exit 2) naming the
 * flag and listing the available keys of both runs for a malformed flag, an unknown key, or a group
 * paired twice.
 */
export function resolvePairs(
  flags: readonly string[],
  baselineKeys: readonly string[],
  candidateKeys: readonly string[],
): GroupPair[] {
  const available = `baseline groups: ${baselineKeys.join(', ') || 'none'}; candidate groups: ${candidateKeys.join(', ') || 'none'}`;
  const fail = (message: string): never => {
    throw new InferbenchError('BAD_USAGE', message, {
      hint: `Pass --pair <baseline group>=<candidate group> with keys scenario/model/tier (tier "-" when none). Available: ${available}.`,
    });
  };
  const baseSet = new Set(baselineKeys);
  const candSet = new Set(candidateKeys);
  const pairs: GroupPair[] = [];
  for (const flag of flags) {
    const splits = [...flag.matchAll(/=/g)].map((m) => ({
      baseline: flag.slice(0, m.index),
      candidate: flag.slice((m.index ?? 0) + 1),
    }));
    if (splits.length === 0) fail(`--pair ${flag}: expected baseline_group=candidate_group.`);
    // A model name may itself contain "=": take the split whose two sides are groups of the runs.
    const pair = splits.find((s) => baseSet.has(s.baseline) && candSet.has(s.candidate));
    if (!pair) {
      const first = splits[0] as GroupPair;
      const problems = [
        ...(baseSet.has(first.baseline) ? [] : [`the baseline run has no group "${first.baseline}"`]),
        ...(candSet.has(first.candidate) ? [] : [`the candidate run has no group "${first.candidate}"`]),
      ];
      fail(`--pair ${flag}: ${problems.join(' and ')}.`);
    } else {
      pairs.push(pair);
    }
  }
  for (const side of ['baseline', 'candidate'] as const) {
    const seen = new Set<string>();
    for (const pair of pairs) {
      if (seen.has(pair[side])) fail(`--pair: the ${side} group "${pair[side]}" is paired more than once.`);
      seen.add(pair[side]);
    }
  }
  return pairs;
}

/**
 * Baseline key -> candidate key for every group that has a partner: the explicit pairs, then each
 * unpaired baseline group with the candidate group of the same key (unless a pair took that group).
 */
export function matchGroups(
  baselineKeys: readonly string[],
  candidateKeys: readonly string[],
  pairs: readonly GroupPair[],
): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(pairs.map((p) => p.candidate));
  const paired = new Map(pairs.map((p) => [p.baseline, p.candidate]));
  const candSet = new Set(candidateKeys);
  for (const key of baselineKeys) {
    const partner = paired.get(key) ?? (candSet.has(key) && !taken.has(key) ? key : undefined);
    if (partner !== undefined) out.set(key, partner);
  }
  return out;
}
