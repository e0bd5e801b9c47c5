/**
 * The server's side of a comparison (target.server_metrics): per paired group, the main concepts of the
 * measured window in both runs (summary.json `groups[].server.measured`) and their change, and which runs
 * scraped at all. Context beside the verdicts, never one: no test, no tolerance, no effect on the exit
 * code (a server busier at the same client numbers is a fact to read, not a regression to fail CI on).
 * Its rendering, shared by the terminal, markdown and compare.html, is in format-values.ts.
 */
import type { GroupSummary, RunSummary } from '../../metrics/run-summary.js';
import type { ServerConceptSummary, ServerPhaseSummary } from '../../metrics/server-summary.js';

/** One concept's statistic of a paired group in both runs. */
export interface ServerValueComparison {
  /** The baseline group's key. */
  readonly group: string;
  /** The candidate group's key: `group` unless paired with --pair. */
  readonly candidateGroup: string;
  /** `<concept>.<statistic>` as in summary.json (`waiting.mean`, `kv_cache_usage.max`), or `energy_per_output_token_j`. */
  readonly id: string;
  /** `ratio` (0..1, shown as %), `ms`, `W`, `J/token`, or '' for counts. */
  readonly unit: string;
  readonly baseline: number | null;
  readonly candidate: number | null;
  /** candidate - baseline (in the unit: a ratio's change is in 0..1, shown as percentage points). */
  readonly absoluteChange: number | null;
  /** (candidate - baseline) / baseline; null when the baseline is 0 or a side has no value. */
  readonly relativeChange: number | null;
}

/** One run's scraping, as the comparison names it. */
export interface ServerSide {
  /** The run scraped its target's metrics (summary.json `server_metrics` or a group's `server`). */
  readonly scraped: boolean;
  /** Each endpoint: `vllm at http://host/metrics (11 of 11 scrapes ok)`. */
  readonly endpoints: readonly string[];
}

/** compare's `server`: present when either run scraped. */
export interface ServerComparison {
  readonly baseline: ServerSide;
  readonly candidate: ServerSide;
  /** Said plainly when only one run scraped (the other's server is unknown, not idle); null otherwise. */
  readonly note: string | null;
  readonly values: readonly ServerValueComparison[];
}

/** The concepts compare shows, in this order, each by one statistic of its kind. */
const SHOWN: readonly { readonly concept: string; readonly stat: string; readonly unit: string }[] = [
  { concept: 'running', stat: 'mean', unit: '' },
  { concept: 'waiting', stat: 'mean', unit: '' },
  { concept: 'waiting', stat: 'max', unit: '' },
  { concept: 'kv_cache_usage', stat: 'max', unit: 'ratio' },
  { concept: 'preemptions', stat: 'delta', unit: '' },
  { concept: 'prefix_cache_hit_ratio', stat: 'value', unit: 'ratio' },
  { concept: 'server_ttft', stat: 'p99', unit: 'ms' },
  { concept: 'gpu_util', stat: 'mean', unit: 'ratio' },
  { concept: 'power_w', stat: 'mean', unit: 'W' },
];
const ENERGY_ID = 'energy_per_output_token_j';

function scraped(summary: RunSummary): boolean {
  return (summary.server_metrics?.length ?? 0) > 0 || summary.groups.some((g) => g.server !== undefined);
}

function sideOf(summary: RunSummary): ServerSide {
  return {
    scraped: scraped(summary),
    endpoints: (summary.server_metrics ?? []).map(
      (e) => `${e.engine ?? 'no engine recognised'} at ${e.url} (${e.scrapes_ok} of ${e.attempts} scrapes ok)`,
    ),
  };
}

function statOf(phase: ServerPhaseSummary | null | undefined, concept: string, stat: string): number | null {
  const value: ServerConceptSummary | undefined = phase?.concepts[concept];
  if (value === undefined) return null;
  const number = (value as unknown as Record<string, unknown>)[stat];
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

function valueRow(
  base: GroupSummary,
  cand: GroupSummary,
  id: string,
  unit: string,
  read: (phase: ServerPhaseSummary | null | undefined) => number | null,
  present: (phase: ServerPhaseSummary | null | undefined) => boolean,
): ServerValueComparison | null {
  const [b, c] = [base.server?.measured, cand.server?.measured];
  if (!present(b) && !present(c)) return null;
  const baseline = read(b);
  const candidate = read(c);
  const absoluteChange = baseline === null || candidate === null ? null : candidate - baseline;
  const relativeChange =
    absoluteChange === null || baseline === null || baseline === 0 ? null : absoluteChange / Math.abs(baseline);
  return {
    group: base.key,
    candidateGroup: cand.key,
    id,
    unit,
    baseline,
    candidate,
    absoluteChange,
    relativeChange,
  };
}

/**
 * The server side of two runs over their paired groups (`partners`: baseline key -> candidate key), or
 * null when neither run scraped (compare's outputs are then exactly those of a run without server metrics).
 * A concept neither group's window has is left out; one only a side has shows the other as no value.
 */
export function compareServers(
  baseline: RunSummary,
  candidate: RunSummary,
  partners: ReadonlyMap<string, string>,
): ServerComparison | null {
  const sides = { baseline: sideOf(baseline), candidate: sideOf(candidate) };
  if (!sides.baseline.scraped && !sides.candidate.scraped) return null;
  const candidateGroups = new Map(candidate.groups.map((g) => [g.key, g]));
  const values: ServerValueComparison[] = [];
  for (const base of baseline.groups) {
    const partner = partners.get(base.key);
    const cand = partner === undefined ? undefined : candidateGroups.get(partner);
    if (cand === undefined) continue;
    for (const { concept, stat, unit } of SHOWN) {
      const row = valueRow(
        base,
        cand,
        `${concept}.${stat}`,
        unit,
        (phase) => statOf(phase, concept, stat),
        (phase) => phase?.concepts[concept] !== undefined,
      );
      if (row !== null) values.push(row);
    }
    const energy = (phase: ServerPhaseSummary | null | undefined): number | null =>
      phase?.energy_per_output_token_j ?? null;
    const row = valueRow(base, cand, ENERGY_ID, 'J/token', energy, (phase) => energy(phase) !== null);
    if (row !== null) values.push(row);
  }
  const only = sides.baseline.scraped ? 'baseline' : 'candidate';
  const other = only === 'baseline' ? 'candidate' : 'baseline';
  const note =
    sides.baseline.scraped && sides.candidate.scraped
      ? null
      : `only the ${only} run scraped the server (target.server_metrics): the ${other}'s server side is unknown, not idle, so there is no change to show`;
  return { ...sides, note, values };
}
