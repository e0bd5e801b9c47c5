/**
 * The capacity engine's loads(), what GET /metrics reads for running, waiting by tier and KV held: taken
 * synchronously between submissions and cancellations, before any tick, so every value is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceTierUsed } from '../../../../src/protocol/chat.js';
import { CapacityEngine } from '../../../../src/emulator/capacity/capacity-engine.js';
import type { EngineHandle } from '../../../../src/emulator/engine.js';
import type { CapacitySpec } from '../../../../src/emulator/model-spec.js';

/** Two slots and a prefill of seconds: nothing is emitted while the test runs. */
const TWO_SLOTS: CapacitySpec = {
  prefillTokensPerS: 1,
  decodeTokensPerS: 100,
  slots: 2,
  ttftFloorMs: 5,
  jitter: 0,
  cacheSpeedup: 0,
};

let engine: CapacityEngine;
afterEach(() => engine.close());

function submit(tier: ServiceTierUsed, inputTokens: number, modelId = 'm'): EngineHandle {
  return engine.submit(
    { modelId, tier, inputTokens, cachedTokens: 0, outputTokens: 4, seed: 1 },
    { onTokens: () => {}, onFinish: () => {} },
  );
}

describe('capacity engine loads', () => {
  it('counts running jobs, waiting ones by tier, and the input tokens the running ones hold', () => {
    engine = new CapacityEngine({ capacityOf: (id) => (id === 'm' ? TWO_SLOTS : undefined) });
    expect(engine.loads()).toEqual([]);
    const first = submit('default', 100);
    submit('flex', 200);
    const waitingFlex = submit('flex', 400);
    submit('priority', 800);
    submit('default', 1600);
    submit('default', 7, 'other');
    expect(engine.loads()).toEqual([
      { modelId: 'm', running: 2, waiting: { priority: 1, default: 1, flex: 1 }, heldTokens: 300 },
      { modelId: 'other', running: 1, waiting: { priority: 0, default: 0, flex: 0 }, heldTokens: 7 },
    ]);
    // A waiting job that goes away leaves its tier's count; a running one frees its slot for priority.
    waitingFlex.cancel();
    expect(engine.loads()[0]).toEqual({
      modelId: 'm',
      running: 2,
      waiting: { priority: 1, default: 1, flex: 0 },
      heldTokens: 300,
    });
    first.cancel();
    expect(engine.loads()[0]).toEqual({
      modelId: 'm',
      running: 2,
      waiting: { priority: 0, default: 1, flex: 0 },
      heldTokens: 1000,
    });
  });
});
