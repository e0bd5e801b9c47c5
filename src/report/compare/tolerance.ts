/**
 * Compare tolerances: how much worse a metric may get before a significant change is a regression.
 * `ttft_ms.p99=10%` (relative to the baseline), `ttft_ms.p99=5ms`, `250us`, `1s` or `error_rate=0.01` (absolute, in the
 * metric's unit), `itl_ms.p50=off` (not compared). Precedence: built-in defaults, then the baseline
 * profile's `compare.tolerances`, then `--tolerance` flags.
 */
import { InferbenchError } from '../../errors.js';
import { GROUP_VALUES, METRIC_STATS, isMetricName } from '../../metrics/metric-registry.js';

export type Tolerance =
  | { readonly kind: 'relative'; readonly fraction: number }
  | { readonly kind: 'absolute'; readonly amount: number }
  | { readonly kind: 'off' };

const STATS = METRIC_STATS;

/** The documented defaults: 10% on p50 and p99 of TTFT, ITL, TPOT and E2E; +0.01 absolute on error_rate. */
export const DEFAULT_TOLERANCES: Readonly<Record<string, string>> = {
  'ttft_ms.p50': '10%',
  'ttft_ms.p99': '10%',
  'itl_ms.p50': '10%',
  'itl_ms.p99': '10%',
  'tpot_ms.p50': '10%',
  'tpot_ms.p99': '10%',
  'e2e_ms.p50': '10%',
  'e2e_ms.p99': '10%',
  error_rate: '0.01',
};

/** Checks a metric id (`ttft_ms.p99`, `error_rate`) and returns its parts, or a reason it is not one. */
export function parseMetricId(id: string): { metric: string; stat: string | null } | string {
  if ((GROUP_VALUES as readonly string[]).includes(id)) return { metric: id, stat: null };
  const dot = id.lastIndexOf('.');
  if (dot < 0)
    return `"${id}" is neither a group value (${GROUP_VALUES.join(', ')}) nor metric.stat (e.g. ttft_ms.p99)`;
  const metric = id.slice(0, dot);
  const stat = id.slice(dot + 1);
  if (!isMetricName(metric)) return `unknown metric "${metric}"`;
  if (!(STATS as readonly string[]).includes(stat)) return `unknown stat "${stat}" (use ${STATS.join(', ')})`;
  return { metric, stat };
}

/** Parses a tolerance value: `10%`, `5ms`, `0.01`, `off`. */
export function parseToleranceValue(text: string): Tolerance | null {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'none') return { kind: 'off' };
  const relative = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (relative) return { kind: 'relative', fraction: Number(relative[1]) / 100 };
  const absolute = /^(\d+(?:\.\d+)?)\s*(us|ms|s)?$/.exec(t);
  if (absolute)
    return {
      kind: 'absolute',
      amount: Number(absolute[1]) * (absolute[2] === 's' ? 1000 : absolute[2] === 'us' ? 0.001 : 1),
    };
  return null;
}

/** Merges tolerance maps (later wins) and validates every entry, listing all problems at once. */
export function resolveTolerances(
  sources: readonly { readonly origin: string; readonly entries: Readonly<Record<string, string>> }[],
): Map<string, Tolerance> {
  const out = new Map<string, Tolerance>();
  const problems: string[] = [];
  for (const { origin, entries } of sources) {
    for (const [id, value] of Object.entries(entries)) {
      const metric = parseMetricId(id);
      if (typeof metric === 'string') {
        problems.push(`${origin}: ${metric}`);
        continue;
      }
      const tolerance = parseToleranceValue(String(value));
      if (!tolerance) {
        problems.push(`${origin}: "${id}=${value}": use a percentage (10%), an absolute amount (5ms, 0.01) or off`);
        continue;
      }
      out.set(id, tolerance);
    }
  }
  if (problems.length > 0) {
    throw new InferbenchError('BAD_USAGE', `Bad compare tolerance(s):\n  ${problems.join('\n  ')}`, {
      hint: 'Write --tolerance ttft_ms.p99=10% (relative), --tolerance ttft_ms.p50=5ms or --tolerance error_rate=0.01 (absolute).',
    });
  }
  return out;
}

/** Parses `--tolerance` flags (`id=value`). */
export function parseToleranceFlags(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) {
      throw new InferbenchError('BAD_USAGE', `--tolerance "${flag}" is not metric=value.`, {
        hint: 'e.g. --tolerance ttft_ms.p99=10%',
      });
    }
    out[flag.slice(0, eq).trim()] = flag.slice(eq + 1).trim();
  }
  return out;
}

/** Human form of a tolerance: "+10%", "+5 ms", "off". */
export function describeTolerance(tolerance: Tolerance, unit: string): string {
  if (tolerance.kind === 'off') return 'off';
  if (tolerance.kind === 'relative') return `+${Math.round(tolerance.fraction * 1000) / 10}%`;
  return `+${tolerance.amount}${unit ? ` ${unit}` : ''}`;
}
