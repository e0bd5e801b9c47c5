/**
 * Sample messages of merged shards (answer-check failures, error samples): the distinct messages of every
 * side, the first `limit` in code-unit order. The rule reads the set of messages only, not which shard
 * came first, so merging shards in any order (and any grouping) keeps the same samples.
 */

/** The first `limit` distinct messages of `lists` together, sorted. */
export function mergeSamples(lists: readonly (readonly string[] | undefined)[], limit: number): string[] {
  const distinct = new Set<string>();
  for (const list of lists) for (const message of list ?? []) distinct.add(message);
  return [...distinct].sort(byCodeUnits).slice(0, limit);
}

/** Code-unit order: the same on every machine and locale (localeCompare is not). */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
