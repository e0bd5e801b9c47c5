/**
 * The `capacity:` rules one field's schema cannot state: a step's untested start (its first block and
 * `step_warmup`, in whole blocks) must leave at least one block of the step for the tests to read;
 * otherwise every step runs its whole `max_step_duration` and ends INCONCLUSIVE. `step_duration` is the
 * older name of `max_step_duration`: one of the two.
 */
import { parseDurationMs } from '../util/duration.js';
import type { ProfileIssue } from './profile-issue.js';
import { CAPACITY_DEFAULTS, stepRampBlocks } from './resolve-capacity.js';

function durationOf(value: unknown, fallback: number): number | null {
  if (value === undefined) return fallback;
  return typeof value === 'number' || typeof value === 'string' ? (parseDurationMs(value) ?? null) : null;
}

export function checkCapacity(capacity: unknown): ProfileIssue[] {
  if (typeof capacity !== 'object' || capacity === null) return [];
  const fields = capacity as Record<string, unknown>;
  const issues: ProfileIssue[] = [];
  if (fields.max_step_duration !== undefined && fields.step_duration !== undefined)
    issues.push({
      path: ['capacity', 'step_duration'],
      message: 'step_duration is the older name of max_step_duration: set one of them',
    });
  if (fields.step_warmup === undefined) return issues;
  const key = fields.max_step_duration !== undefined ? 'max_step_duration' : 'step_duration';
  const warmupMs = durationOf(fields.step_warmup, 0);
  const durationMs = durationOf(fields.max_step_duration ?? fields.step_duration, CAPACITY_DEFAULTS.stepDurationMs);
  const blockMs = durationOf(fields.block, CAPACITY_DEFAULTS.blockMs);
  if (warmupMs === null || durationMs === null || blockMs === null || blockMs <= 0) return issues;
  const untested = stepRampBlocks(warmupMs, blockMs);
  if (untested < Math.floor(durationMs / blockMs)) return issues;
  issues.push({
    path: ['capacity', 'step_warmup'],
    message: `a step's untested start (step_warmup ${warmupMs / 1000} s and the first block: ${untested} blocks of ${blockMs / 1000} s) leaves no block of the step (${key} ${durationMs / 1000} s) for the tests`,
  });
  return issues;
}
