import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/emulator/api-error.js';
import { BUILTIN_MODELS } from '../../../../src/emulator/catalog/builtin-catalog.js';
import { parseFaultHeader } from '../../../../src/emulator/faults/parse-fault-header.js';
import { SeededFaultInjector } from '../../../../src/emulator/faults/seeded-fault-injector.js';
import type { FaultSpec, ModelSpec } from '../../../../src/emulator/model-spec.js';

const base = BUILTIN_MODELS[0]!;
function modelWith(faults: Partial<FaultSpec>): ModelSpec {
  return { ...base, faults: { ...base.faults, ...faults } };
}

describe('x-emulator-fault header', () => {
  const defaults = { afterTokens: 3, stallMs: 2000 };

  it.each([
    ['http_500', { kind: 'http_500', afterTokens: 3, stallMs: 2000 }],
    ['stream_error;after=5', { kind: 'stream_error', afterTokens: 5, stallMs: 2000 }],
    [' Stall_Between_Tokens ; ms = 150 ; after=0', { kind: 'stall_between_tokens', afterTokens: 0, stallMs: 150 }],
    ['slow-headers;ms=40', { kind: 'slow_headers', afterTokens: 3, stallMs: 40 }],
    ['reset;after=2;', { kind: 'reset', afterTokens: 2, stallMs: 2000 }],
    ['none', { kind: 'none', afterTokens: 3, stallMs: 2000 }],
  ])('parses %j', (value, plan) => {
    expect(parseFaultHeader(value, defaults)).toEqual(plan);
  });

  it.each(['explode', 'http_500;after=x', 'reset;when=3', 'http_404'])(
    'rejects %j with a 400 naming the header',
    (value) => {
      let error: unknown;
      try {
        parseFaultHeader(value, defaults);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).param).toBe('x-emulator-fault');
    },
  );
});

describe('seeded fault injector', () => {
  it('injects nothing with the default (zero) rates', () => {
    const injector = new SeededFaultInjector({ seed: 1 });
    for (let i = 0; i < 1000; i++) expect(injector.decide(base, undefined, i).kind).toBe('none');
  });

  it('follows the header over the rates, with the model stall length as the default', () => {
    const injector = new SeededFaultInjector();
    const model = modelWith({ http500: 1, stallMs: 321 });
    expect(injector.decide(model, 'stall_before_headers', 1)).toEqual({
      kind: 'stall_before_headers',
      afterTokens: 3,
      stallMs: 321,
    });
    expect(injector.decide(model, undefined, 1).kind).toBe('http_500');
  });

  it('draws faults at the configured rates, the same for the same seed, independent of a shared request seed', () => {
    const model = modelWith({ http503: 0.1, reset: 0.2 });
    const draw = (seed: number) => {
      const injector = new SeededFaultInjector({ seed });
      return Array.from({ length: 5000 }, () => injector.decide(model, undefined, 42).kind);
    };
    const a = draw(7);
    expect(draw(7)).toEqual(a);
    expect(draw(8)).not.toEqual(a);
    const share = (kind: string) => a.filter((k) => k === kind).length / a.length;
    expect(share('http_503')).toBeGreaterThan(0.08);
    expect(share('http_503')).toBeLessThan(0.12);
    expect(share('reset')).toBeGreaterThan(0.17);
    expect(share('reset')).toBeLessThan(0.23);
    expect(share('none')).toBeGreaterThan(0.65);
  });
});
