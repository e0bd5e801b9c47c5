/**
 * The `deadlines:` section of a profile: the per-token deadlines of etalon's fluidity index
 * (measure/fluidity.ts), e.g. `deadlines: { ttft: 500ms, tbt: 50ms }`. Each needs its unit: a bare 500
 * could be seconds (as elsewhere in a profile) or milliseconds, and a deadline of 0 means nothing.
 * fluidity_index exists only when the profile sets it: an SLO or a threshold on it without deadlines would
 * judge nothing (the SLO would pass every request and every step, the threshold fail for want of a value),
 * so either is a profile error, found before anything is sent. Resolved to milliseconds.
 */
import { z } from 'zod';
import { parseDurationMs } from '../../util/duration.js';
import type { ProfileIssue } from '../profile-issue.js';
import type { ResolvedProfile } from '../resolved-profile.js';

/** A positive duration with its unit: "500ms", "0.5s", "250us". */
const DEADLINE_PATTERN = /^\s*(?=[\d.]*[1-9])\d+(?:\.\d+)?\s*(?:us|ms|s)\s*$/;
const DEADLINE_MESSAGE = 'expected a positive duration with its unit, like "500ms" or "0.5s"';

const deadline = z.string({ error: DEADLINE_MESSAGE }).regex(DEADLINE_PATTERN, { error: DEADLINE_MESSAGE });

export const deadlinesSchema = z
  .strictObject({
    ttft: deadline.meta({ description: "The first token's deadline (etalon's prefill deadline D_p), e.g. 500ms." }),
    tbt: deadline.meta({
      description: "Each next token's deadline after the previous one (etalon's decode deadline D_d), e.g. 50ms.",
    }),
  })
  .meta({
    id: 'deadlines',
    description:
      'Per-token deadlines for the fluidity_index metric (etalon): { ttft: 500ms, tbt: 50ms }. Omitted: no fluidity_index.',
  });

export type DeadlinesInput = z.infer<typeof deadlinesSchema>;

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

/** `deadlines:` in ms; null without it (no fluidity_index). */
export function resolveDeadlines(input: DeadlinesInput | undefined): ResolvedProfile['deadlines'] {
  return input ? { ttftMs: parseDurationMs(input.ttft) as number, tbtMs: parseDurationMs(input.tbt) as number } : null;
}
