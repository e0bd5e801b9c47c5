/** The `capacity:` rules one field's schema cannot state: a step's untested start must leave a tested part. */
import { parseDurationMs } from '../util/duration.js';
import type { ProfileIssue } from './profile-issue.js';
import { CAPACITY_DEFAULTS } from './resolve-capacity.js';

function durationOf(value: unknown): number | null {
  return typeof value === 'number' || typeof value === 'string' ? (parseDurationMs(value) ?? null) : null;
}

export function checkCapacity(capacity: unknown): ProfileIssue[] {
  if (typeof capacity !== 'object' || capacity === null) return [];
  const { step_warmup: warmup, step_duration: duration } = capacity as Record<string, unknown>;
  const warmupMs = durationOf(warmup);
  const durationMs = duration === undefined ? CAPACITY_DEFAULTS.stepDurationMs : durationOf(duration);
  if (warmupMs === null || durationMs === null || warmupMs < durationMs) return [];
  return [
    {
      path: ['capacity', 'step_warmup'],
      message: `a step's untested start (${warmupMs / 1000} s) must be shorter than the step (step_duration ${durationMs / 1000} s)`,
    },
  ];
}
