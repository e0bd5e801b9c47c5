/**
 * Warnings the workloads collected during a run (a dataset whose without_replacement supply ran out), added
 * to summary.json harness.warnings once, each distinct text once (every group of a scenario says the same).
 * With `run --workers`, every worker that went past the end of a supply says so at its own request number
 * (the workers' requests interleave): the coordinator says it once, at the smallest, where one thread would.
 */
import type { HarnessHealth } from '../metrics/run-summary.js';
import type { Workload } from '../workload/create-workload.js';

export function withWorkloadWarnings(harness: HarnessHealth, workloads: Iterable<Workload>): HarnessHealth {
  const warnings = new Set<string>();
  for (const workload of workloads) for (const warning of workload.warnings?.() ?? []) warnings.add(warning);
  return warnings.size === 0 ? harness : { ...harness, warnings: [...harness.warnings, ...warnings] };
}

/** How workload/dataset/dataset-source.ts words a supply that ran out: the request number is where it did. */
const RAN_OUT =
  /^(scenario .+: prompt\.dataset \(sample: without_replacement\) ran out of its \d+ entries at request )(\d+)(;.*)$/s;

/**
 * The workers' healths without their ran-out warnings, and those warnings once each (the same scenario and
 * dataset: the same text but for the request number), at the smallest request number any worker saw.
 */
export function mergeRanOutWarnings(healths: readonly HarnessHealth[]): {
  healths: HarnessHealth[];
  warnings: string[];
} {
  const smallest = new Map<string, { head: string; request: number; tail: string }>();
  const rest = healths.map((health) => ({
    ...health,
    warnings: health.warnings.filter((warning) => {
      const match = RAN_OUT.exec(warning);
      if (match === null) return true;
      const [, head = '', request = '', tail = ''] = match;
      const key = `${head}\u0000${tail}`;
      const seen = smallest.get(key);
      if (seen === undefined || Number(request) < seen.request)
        smallest.set(key, { head, request: Number(request), tail });
      return false;
    }),
  }));
  return { healths: rest, warnings: [...smallest.values()].map((w) => `${w.head}${w.request}${w.tail}`) };
}
