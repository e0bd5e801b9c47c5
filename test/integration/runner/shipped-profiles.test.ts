/**
 * Every profile shipped in profiles/ runs as a user would run it against the emulator and passes
 * its own thresholds (test/helpers/shipped-profiles.ts): this file the first half of them, and the check
 * that the list is complete; shipped-profiles-2.test.ts the second half, run beside this one.
 * @module-tag slow
 */
import { describe, expect, it } from 'vitest';
import { SHIPPED_PROFILES, testShippedProfiles } from '../../helpers/shipped-profiles.js';

describe('shipped profiles (first half)', () => {
  it('are all found', () => {
    expect(SHIPPED_PROFILES).toEqual(
      expect.arrayContaining([
        'quickstart.yaml',
        'ci-regression.yaml',
        'tier-comparison.yaml',
        'model-comparison.yaml',
        'open-loop-poisson.yaml',
        'ramp.yaml',
      ]),
    );
  });

  testShippedProfiles(SHIPPED_PROFILES.filter((_, i) => i % 2 === 0));
});
