/**
 * Draws one token length from a LengthDistribution of the profile: an integer, clamped to the
 * distribution's [min, max] (and to at least 1), from a seeded Rng.
 */
import type { LengthDistribution } from '../profile/resolved-profile.js';
import type { Rng } from '../util/rng.js';
import { lognormal, normal } from '../util/distributions.js';

export function sampleLength(spec: LengthDistribution, rng: Rng): number {
  switch (spec.dist) {
    case 'fixed':
      return spec.value;
    case 'uniform':
      return rng.int(spec.min, spec.max);
    case 'normal':
      return clamp(Math.round(normal(rng, spec.mean, spec.stddev)), spec.min, spec.max);
    case 'lognormal':
      return clamp(Math.round(lognormal(rng, spec.mean, spec.stddev)), spec.min, spec.max);
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(1, Math.min(max, Math.max(min, value)));
}
