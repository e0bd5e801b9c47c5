/**
 * The process's schema compiler: one ajv, each schema text compiled once (a profile loaded again, or
 * checked by `validate` and then by the run's answer checks, compiles nothing new), a compile error kept
 * as well, and a bounded cache. What a schema means is unchanged: the answer checks' tests cover it.
 */
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../src/util/json-schema-compiler.js';

const weather = (): Record<string, unknown> => ({
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
  required: ['city'],
});

describe('compileSchema', () => {
  it('compiles a schema text once: another object with the same text gets the same validator', () => {
    const first = compileSchema(weather());
    expect(compileSchema(weather())).toBe(first);
    // `$schema` is ignored, so a draft-07 copy is the same schema.
    expect(compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', ...weather() })).toBe(first);
    expect(first({ city: 'Oslo', days: 2 })).toBe(true);
    expect(first({ days: 0 })).toBe(false);
    expect(first.errors?.[0]?.message).toBe("must have required property 'city'");
  });

  it('keeps schemas apart whose key order differs (it orders the checks, hence the first error)', () => {
    const ab = compileSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } });
    const ba = compileSchema({ type: 'object', properties: { b: { type: 'string' }, a: { type: 'string' } } });
    expect(ba).not.toBe(ab);
    expect(ab({ a: 1, b: 2 })).toBe(false);
    expect(ab.errors?.[0]?.instancePath).toBe('/a');
    expect(ba({ a: 1, b: 2 })).toBe(false);
    expect(ba.errors?.[0]?.instancePath).toBe('/b');
  });

  it('throws the same compile error for the same broken text, without compiling it again', () => {
    const failure = (): unknown => {
      try {
        compileSchema({ type: 'object', required: 'x' });
      } catch (error) {
        return error;
      }
      return null;
    };
    const first = failure();
    expect((first as Error).message).toBe('schema is invalid: data/required must be array');
    expect(failure()).toBe(first);
  });

  it('is bounded: a schema pushed out by 256 newer ones is compiled again, and still works', () => {
    const first = compileSchema({ const: 'first' });
    // Used again, it is the most recent: it survives 255 newer schemas.
    for (let i = 0; i < 255; i++) compileSchema({ const: i });
    expect(compileSchema({ const: 'first' })).toBe(first);
    for (let i = 0; i < 256; i++) compileSchema({ const: `later ${i}` });
    const again = compileSchema({ const: 'first' });
    expect(again).not.toBe(first);
    expect(again('first')).toBe(true);
    expect(again('other')).toBe(false);
  });
});
