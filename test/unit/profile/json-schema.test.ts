import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { PROFILE_SCHEMA_PATH, profileJsonSchema, profileJsonSchemaText } from '../../../src/profile/json-schema.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const PROFILES = resolve(ROOT, 'profiles');

describe('schema/profile.schema.json', () => {
  it('is what the zod schema generates (regenerate: npm run build && node dist/cli/write-profile-schema.js)', () => {
    expect(readFileSync(resolve(ROOT, PROFILE_SCHEMA_PATH), 'utf8')).toBe(profileJsonSchemaText());
  });

  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const validate = ajv.compile(profileJsonSchema());

  it('accepts every shipped profile', () => {
    const files = readdirSync(PROFILES).filter((f) => f.endsWith('.yaml') && !f.startsWith('emulator-'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const ok = validate(parse(readFileSync(resolve(PROFILES, file), 'utf8')));
      expect(ok, `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('rejects unknown keys, bad enums and bad durations the way the loader does', () => {
    const base = { scenarios: [{ name: 's', duration: '5s' }] };
    expect(validate(base)).toBe(true);
    expect(validate({ ...base, extra: 1 })).toBe(false);
    expect(validate({ scenarios: [{ name: 's', duration: '5 s' }] })).toBe(false);
    expect(validate({ scenarios: [{ name: 's', duration: 5, tiers: ['gold'] }] })).toBe(false);
    expect(
      validate({
        scenarios: [
          { name: 's', duration: '1m30s', load: { mode: 'rate', rate: 3, arrival: 'gamma', burstiness: 0.5 } },
        ],
      }),
    ).toBe(true);
    expect(validate({ ...base, slo: { 'ttft.p99': 3 } })).toBe(false);
    expect(validate({ ...base, slo: { 'ttft_ms.p99': 3 } })).toBe(true);
    expect(validate({ scenarios: [{ name: 's', duration: '1s', request: { model: 'x' } }] })).toBe(false);
    // request takes the spec's fields only (a typo is an error); the rest go in request_extra.
    expect(validate({ scenarios: [{ name: 's', duration: '1s', request: { top_k: 5 } }] })).toBe(false);
    expect(
      validate({
        scenarios: [
          {
            name: 's',
            duration: '1s',
            request: { temperature: 0, stream_options: { include_usage: false } },
            request_extra: { top_k: 5 },
          },
        ],
      }),
    ).toBe(true);
  });
});
