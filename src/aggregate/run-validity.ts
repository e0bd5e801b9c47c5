/**
 * Whether a run is valid evidence of its target's speed: not when the harness flagged itself (its event
 * loop or schedule fell behind, or it used a whole core: harness.client_bottleneck) or when arrivals were
 * dropped at the client's own cap (max_concurrency), so the load the profile states was not the load sent.
 * `run --fail-on invalid` (or the profile's `fail_on_invalid`) exits 5 on such a run, and `compare`
 * refuses to call a regression from one.
 */
import type { RunSummary } from '../metrics/run-summary.js';

/** Why the run is not valid evidence, one sentence each; empty when it is. */
export function invalidEvidence(summary: Pick<RunSummary, 'harness' | 'groups'>): string[] {
  const reasons: string[] = [];
  if (summary.harness.client_bottleneck) {
    const why = summary.harness.warnings.join('; ');
    reasons.push(`the client was its own bottleneck${why === '' ? '' : `: ${why}`}`);
  }
  for (const group of summary.groups) {
    const dropped = group.requests.dropped;
    if (dropped > 0)
      reasons.push(
        `${group.key}: ${dropped} arrival${dropped === 1 ? ' was' : 's were'} dropped at max_concurrency (the client's own cap): the stated load was not sent`,
      );
  }
  return reasons;
}
