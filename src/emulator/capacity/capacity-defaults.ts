/**
 * The capacity used for an id the catalog does not know (realistic for a shared model: a few hundred
 * streams at once, ~100 tokens/s each), and the lookup from a catalog's models and dedicated endpoints.
 */
import type { CapacitySpec, EndpointSpec, ModelSpec } from '../model-spec.js';

/** A shared (serverless) model: many slots, quick prefill, ~100 tokens/s per stream. */
export const SHARED_MODEL_CAPACITY: CapacitySpec = {
  prefillTokensPerS: 20_000,
  decodeTokensPerS: 100,
  slots: 256,
  ttftFloorMs: 40,
  jitter: 0.1,
  cacheSpeedup: 0.8,
};

/** Returns the capacity of a model id or dedicated endpoint id, undefined when the catalog has neither. */
export type CapacityLookup = (modelId: string) => CapacitySpec | undefined;

/** Builds a lookup over a catalog's models and dedicated endpoints (endpoints use their own capacity). */
export function capacityLookup(models: readonly ModelSpec[], endpoints: readonly EndpointSpec[] = []): CapacityLookup {
  const byId = new Map<string, CapacitySpec>();
  for (const model of models) byId.set(model.id, model.capacity);
  for (const endpoint of endpoints) byId.set(endpoint.endpointId, endpoint.capacity);
  return (modelId) => byId.get(modelId);
}
