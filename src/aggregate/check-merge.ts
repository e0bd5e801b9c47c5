/**
 * Exact merge of two groups' answer checks (shards of one run): passed and failed add, the pass rate is
 * recomputed from the sums, and samples are the first CHECK_SAMPLES distinct ones of `a` then `b`.
 */
import { ANSWER_CHECK_NAMES, CHECK_SAMPLES, type GroupChecks, passRate } from '../metrics/check-summary.js';

/** `checks` of the merged group; absent when neither side had any. */
export function mergeChecks(a: { checks?: GroupChecks }, b: { checks?: GroupChecks }): { checks?: GroupChecks } {
  if (a.checks === undefined && b.checks === undefined) return {};
  const out: GroupChecks = {};
  for (const name of ANSWER_CHECK_NAMES) {
    const left = a.checks?.[name];
    const right = b.checks?.[name];
    if (left === undefined && right === undefined) continue;
    const passed = (left?.passed ?? 0) + (right?.passed ?? 0);
    const failed = (left?.failed ?? 0) + (right?.failed ?? 0);
    const samples: string[] = [];
    for (const message of [...(left?.samples ?? []), ...(right?.samples ?? [])]) {
      if (samples.length < CHECK_SAMPLES && !samples.includes(message)) samples.push(message);
    }
    out[name] = { passed, failed, pass_rate: passRate(passed, failed), samples };
  }
  return { checks: out };
}
