/**
 * The kinds of value several profile sections share, in one place: a duration ("30s") and a token length
 * (a number or a seeded distribution), each as written (zod), resolved and described. Sections import
 * these; they never import each other (profile/sections/).
 */
import { z } from 'zod';
import type { LengthDistribution } from './resolved-profile.js';

/** Mirrors util/duration.ts: "250ms", "30s", "2m", "1m30s", "1.5h", or a bare number of seconds. */
export const DURATION_PATTERN = '^\\s*(?:\\d+(?:\\.\\d+)?|(?:\\d+(?:\\.\\d+)?(?:us|ms|s|m|h))+)\\s*$';
const DURATION_MESSAGE = 'expected a duration like "30s", "250ms", "2m" or a number of seconds';

export const duration = z
  .union([z.string().regex(new RegExp(DURATION_PATTERN), { error: DURATION_MESSAGE }), z.number().nonnegative()], {
    error: DURATION_MESSAGE,
  })
  .meta({ id: 'duration', description: 'A duration: "250ms", "30s", "2m", "1m30s", or a number of seconds.' });

/** A token length: a number (fixed) or a seeded distribution. */
export const lengthDistribution = z
  .union(
    [
      z.number().int().min(1),
      z.discriminatedUnion('dist', [
        z.strictObject({ dist: z.literal('fixed'), value: z.number().int().min(1) }),
        z.strictObject({ dist: z.literal('uniform'), min: z.number().int().min(1), max: z.number().int().min(1) }),
        z.strictObject({
          dist: z.enum(['normal', 'lognormal']),
          mean: z.number().positive(),
          stddev: z.number().nonnegative(),
          min: z.number().int().min(1).optional(),
          max: z.number().int().min(1).optional(),
        }),
      ]),
    ],
    { error: 'expected a number of tokens or { dist: fixed|uniform|normal|lognormal, ... }' },
  )
  .meta({
    id: 'tokenLength',
    description:
      'Tokens: a number (fixed) or { dist: fixed, value } | { dist: uniform, min, max } | { dist: normal|lognormal, mean, stddev, min?, max? }.',
  });

export type DurationInput = z.infer<typeof duration>;
export type LengthInput = z.infer<typeof lengthDistribution>;

/** normal/lognormal lengths without max are clamped to mean + this many stddevs. */
export const LENGTH_MAX_STDDEVS = 5;

export function resolveLength(length: LengthInput): LengthDistribution {
  if (typeof length === 'number') return { dist: 'fixed', value: length };
  switch (length.dist) {
    case 'fixed':
      return { dist: 'fixed', value: length.value };
    case 'uniform':
      return { dist: 'uniform', min: length.min, max: length.max };
    default:
      return {
        dist: length.dist,
        mean: length.mean,
        stddev: length.stddev,
        min: length.min ?? 1,
        max: length.max ?? Math.max(Math.ceil(length.mean + LENGTH_MAX_STDDEVS * length.stddev), 1),
      };
  }
}

/** How `validate` describes a token length. */
export function formatLength(length: LengthDistribution): string {
  switch (length.dist) {
    case 'fixed':
      return `${length.value} tokens`;
    case 'uniform':
      return `uniform ${length.min}..${length.max} tokens`;
    default:
      return `${length.dist} mean ${length.mean} stddev ${length.stddev} tokens, clamped to ${length.min}..${length.max}`;
  }
}
