/**
 * What every request handler of the emulator reads: the catalog, the keys, the hooks and the options
 * that shape responses. Built once by createEmulator, never mutated except the request counter.
 */
import type { Engine } from './engine.js';
import type { FaultInjector, PromptCache, RateLimiter } from './hooks.js';
import type { CatalogIndex } from './catalog/catalog.js';
import type { KeySets } from './http/auth.js';
import type { PlanningTurns } from './http/planning-turns.js';
import type { ServerMeters } from './server-metrics/model-meter.js';

export interface EmulatorContext {
  readonly catalog: CatalogIndex;
  readonly keys: KeySets;
  readonly engine: Engine;
  readonly rateLimiter: RateLimiter;
  readonly promptCache: PromptCache;
  readonly faults: FaultInjector;
  /** Organizations the management endpoint knows (even with no endpoints). */
  readonly orgs: readonly string[];
  readonly filesDir: string | undefined;
  readonly doneMarker: boolean;
  /** Chat requests are validated and planned one per turn of the event loop (planning-turns.ts). */
  readonly planning: PlanningTurns;
  /** What GET /metrics counts per model (token counters, finish reasons, latency histograms). */
  readonly meters: ServerMeters;
  /** Per-request counter: the seed of requests that set none, and part of response ids. */
  nextRequestNumber(): number;
}
