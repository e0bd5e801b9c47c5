/**
 * Decides each request's fault: the `x-emulator-fault` header when present (tests ask for one exact
 * fault), otherwise a seeded draw against the model's configured rates (all zero by default). The draws
 * come from one stream seeded at construction and mixed with the request's seed, so a run with the same
 * seed and the same request order injects the same faults, and requests that share a `seed` (common in
 * benchmark profiles) still get independent draws.
 */
import { createRng, type Rng } from '../../util/rng.js';
import { NO_FAULT, type FaultInjector, type FaultKind, type FaultPlan } from '../hooks.js';
import type { FaultSpec, ModelSpec } from '../model-spec.js';
import { parseFaultHeader } from './parse-fault-header.js';

export interface SeededFaultInjectorOptions {
  /** Seed of the draw stream (default 0). */
  readonly seed?: number;
  /** Stall length when neither the header nor the model gives one (ms, default 2000). */
  readonly defaultStallMs?: number;
  /** Tokens sent before an in-stream fault asked for without `after=` (default 3). */
  readonly defaultAfterTokens?: number;
}

/** Rate fields of FaultSpec and the kind each one injects, in the order the draw walks them. */
const RATED: readonly (readonly [keyof FaultSpec, FaultKind])[] = [
  ['http500', 'http_500'],
  ['http503', 'http_503'],
  ['streamError', 'stream_error'],
  ['reset', 'reset'],
  ['stallBeforeHeaders', 'stall_before_headers'],
  ['stallBetweenTokens', 'stall_between_tokens'],
];

export class SeededFaultInjector implements FaultInjector {
  readonly #rng: Rng;
  readonly #defaultStallMs: number;
  readonly #defaultAfterTokens: number;

  constructor(options: SeededFaultInjectorOptions = {}) {
    this.#rng = createRng(options.seed ?? 0);
    this.#defaultStallMs = options.defaultStallMs ?? 2000;
    this.#defaultAfterTokens = options.defaultAfterTokens ?? 3;
  }

  decide(model: ModelSpec, faultHeader: string | undefined, requestSeed: number): FaultPlan {
    const stallMs = model.faults.stallMs > 0 ? model.faults.stallMs : this.#defaultStallMs;
    if (faultHeader !== undefined && faultHeader.trim() !== '') {
      return parseFaultHeader(faultHeader, { afterTokens: this.#defaultAfterTokens, stallMs });
    }
    let total = 0;
    for (const [field] of RATED) total += model.faults[field];
    if (!(total > 0)) return NO_FAULT;

    const draw = createRng((Math.floor(this.#rng.next() * 4294967296) ^ requestSeed) >>> 0);
    const u = draw.next();
    let edge = 0;
    for (const [field, kind] of RATED) {
      edge += model.faults[field];
      if (u < edge) return { kind, afterTokens: draw.int(1, 16), stallMs };
    }
    return NO_FAULT;
  }
}

/** Builds the emulator's default fault injector. */
export function createFaultInjector(options: SeededFaultInjectorOptions = {}): SeededFaultInjector {
  return new SeededFaultInjector(options);
}
