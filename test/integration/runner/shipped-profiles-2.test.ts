/**
 * Every profile shipped in profiles/ runs as a user would run it against the emulator and passes
 * its own thresholds (test/helpers/shipped-profiles.ts): this file the second half of them, run beside
 * shipped-profiles.test.ts (the first half), so that the two take half the time.
 * @module-tag slow
 */
import { describe } from 'vitest';
import { SHIPPED_PROFILES, testShippedProfiles } from '../../helpers/shipped-profiles.js';

describe('shipped profiles (second half)', () => {
  testShippedProfiles(SHIPPED_PROFILES.filter((_, i) => i % 2 === 1));
});
