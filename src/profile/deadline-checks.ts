/**
 * fluidity_index exists only when the profile sets `deadlines:` (measure/fluidity.ts). An SLO or a
 * threshold on it without deadlines would judge nothing: the SLO would pass every request and every step,
 * the threshold fail for want of a value. Either is a profile error, found before anything is sent.
 */
import type { ProfileIssue } from './profile-issue.js';

const METRIC = 'fluidity_index';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sloIssues(slo: unknown, path: readonly (string | number)[]): ProfileIssue[] {
  if (!isRecord(slo)) return [];
  return Object.keys(slo)
    .filter((key) => key.startsWith(`${METRIC}.`) || key === METRIC)
    .map((key) => ({ path: [...path, key], atKey: true, message: `${METRIC} needs deadlines: { ttft, tbt }` }));
}

/** Every SLO key and threshold naming fluidity_index in a profile without `deadlines`. */
export function checkFluidityNeedsDeadlines(data: Record<string, unknown>): ProfileIssue[] {
  if (data.deadlines !== undefined) return [];
  const issues = sloIssues(data.slo, ['slo']);
  if (isRecord(data.capacity)) {
    issues.push(...sloIssues(data.capacity.slo, ['capacity', 'slo']));
    const mix = data.capacity.mix;
    if (isRecord(mix))
      for (const [tier, member] of Object.entries(mix))
        if (isRecord(member)) issues.push(...sloIssues(member.slo, ['capacity', 'mix', tier, 'slo']));
  }
  if (Array.isArray(data.thresholds))
    data.thresholds.forEach((threshold, i) => {
      const text = isRecord(threshold) ? threshold.threshold : threshold;
      if (typeof text === 'string' && text.includes(METRIC))
        issues.push({ path: ['thresholds', i], message: `${METRIC} needs deadlines: { ttft, tbt }` });
    });
  return issues;
}
