/**
 * The threshold grammar: `[group-key:] metric[.stat] op number`, e.g. "ttft_ms.p99 < 800",
 * "error_rate < 0.01", "steady/model-a/flex: e2e_ms.p50 <= 2000". Parsed once at load time so a typo is a
 * profile error with a line number, not a surprise at the end of a long run.
 */
import type { ThresholdSpec } from './resolved-profile.js';
import { GROUP_VALUES, METRIC_STATS, PER_REQUEST_METRICS } from './metric-names.js';

const GRAMMAR =
  /^\s*(?:([^:\s][^:]*?)\s*:\s*)?([a-z0-9_]+)(?:\.([a-z0-9_]+))?\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/i;

/** Either the parsed threshold or a message saying what is wrong with it. */
export type ThresholdParse =
  | { readonly ok: true; readonly spec: ThresholdSpec }
  | { readonly ok: false; readonly message: string };

/** Parses one threshold expression. Never throws. */
export function parseThreshold(expression: string): ThresholdParse {
  const match = GRAMMAR.exec(expression);
  if (!match) {
    return {
      ok: false,
      message: `"${expression}" is not a threshold; expected "[group-key:] metric[.stat] op number", e.g. "ttft_ms.p99 < 800" (op: < <= > >=)`,
    };
  }
  const [, group, metric, stat, op, value] = match as unknown as [
    string,
    string | undefined,
    string,
    string | undefined,
    ThresholdSpec['op'],
    string,
  ];
  if ((GROUP_VALUES as readonly string[]).includes(metric)) {
    if (stat !== undefined)
      return {
        ok: false,
        message: `"${expression}": ${metric} is a group-level value and takes no stat (write "${metric} ${op} ${value}")`,
      };
  } else if (PER_REQUEST_METRICS.includes(metric)) {
    if (stat === undefined)
      return {
        ok: false,
        message: `"${expression}": ${metric} needs a stat (${METRIC_STATS.join(', ')}), e.g. "${metric}.p99"`,
      };
    if (!(METRIC_STATS as readonly string[]).includes(stat))
      return { ok: false, message: `"${expression}": unknown stat "${stat}"; one of ${METRIC_STATS.join(', ')}` };
  } else {
    return {
      ok: false,
      message: `"${expression}": unknown metric "${metric}"; one of ${[...PER_REQUEST_METRICS, ...GROUP_VALUES].join(', ')}`,
    };
  }
  if (group !== undefined && group.split('/').length < 3) {
    return {
      ok: false,
      message: `"${expression}": group key "${group}" must be "scenario/model/tier" (tier "-" when none)`,
    };
  }
  return {
    ok: true,
    spec: { expression: expression.trim(), group: group ?? null, metric, stat: stat ?? null, op, value: Number(value) },
  };
}
