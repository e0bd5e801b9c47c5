/**
 * Exact merge of two groups' answer checks (shards of one run): passed and failed add, the pass rate is
 * recomputed from the sums, and samples are the first CHECK_SAMPLES distinct messages of both in sorted
 * order (merge-samples.ts), so the merge does not depend on the order of the shards.
 */
import { ANSWER_CHECK_NAMES, CHECK_SAMPLES, type GroupChecks, passRate } from '../metrics/check-summary.js';
import { mergeSamples } from './merge-samples.js';

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
    const samples = mergeSamples([left?.samples, right?.samples], CHECK_SAMPLES);
    out[name] = { passed, failed, pass_rate: passRate(passed, failed), samples };
  }
  return { checks: out };
}
