/**
 * The profile's `pricing:` key: per model USD per token (decimal strings like the catalog's, or numbers,
 * resolved to canonical decimal strings) or USD per hour; unknown keys and non-decimals are profile errors
 * naming the field; a profile without it resolves without the field (its summary.json stays as it was).
 */
import { describe, expect, it } from 'vitest';
import { profileProblems } from '../../helpers/profile-problems.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';

const MINIMAL = 'scenarios:\n  - name: s\n    duration: 5s\n';

/** The whole BAD_PROFILE message, its problem lines after the first. */
const problems = (text: string): string => `p.yaml:\n${profileProblems(text).join('\n')}`;

describe('pricing:', () => {
  it('resolves per-token prices to canonical decimal strings and per-hour prices', () => {
    const profile = resolveProfileText(
      `${MINIMAL}pricing:\n  a: { prompt: "0.0000002", completion: 0.0000004 }\n  b: { per_hour: 12.5 }\n  c: { prompt: "2e-7", completion: "0.00000040" }\n`,
      'p.yaml',
    );
    expect(profile.pricing).toEqual({
      a: { kind: 'token', prompt: '0.0000002', completion: '0.0000004' },
      b: { kind: 'hour', perHour: '12.5' },
      c: { kind: 'token', prompt: '0.0000002', completion: '0.0000004' },
    });
  });

  it('is absent from a profile that does not set it', () => {
    expect(resolveProfileText(MINIMAL, 'p.yaml')).not.toHaveProperty('pricing');
  });

  it('rejects a price that is no decimal and a typo of its keys, naming the field', () => {
    expect(problems(`${MINIMAL}pricing:\n  a: { prompt: "cheap", completion: "0.1" }\n`)).toMatch(/pricing\.a/);
    expect(problems(`${MINIMAL}pricing:\n  a: { promt: "0.1", completion: "0.1" }\n`)).toMatch(/pricing\.a/);
    expect(problems(`${MINIMAL}pricing:\n  a: { per_hour: -3 }\n`)).toMatch(/pricing\.a/);
  });
});
