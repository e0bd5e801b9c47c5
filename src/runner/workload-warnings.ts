/**
 * Warnings the workloads collected during a run (a dataset whose without_replacement supply ran out), added
 * to summary.json harness.warnings once, each distinct text once (every group of a scenario says the same).
 */
import type { HarnessHealth } from '../metrics/run-summary.js';
import type { Workload } from '../workload/create-workload.js';

export function withWorkloadWarnings(harness: HarnessHealth, workloads: Iterable<Workload>): HarnessHealth {
  const warnings = new Set<string>();
  for (const workload of workloads) for (const warning of workload.warnings?.() ?? []) warnings.add(warning);
  return warnings.size === 0 ? harness : { ...harness, warnings: [...harness.warnings, ...warnings] };
}
