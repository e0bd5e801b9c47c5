/**
 * Strict tier order under a closed loop with more `priority` streams than slots (the tier-comparison
 * profile at concurrency 100 per tier on 48 slots, scaled down): priority keeps every slot, `default` and
 * `flex` both get only the slots that were free when the run started, and when priority stops, every
 * waiting `default` job starts before any waiting `flex` job. Never a lower tier while a higher one waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceTierUsed } from '../../../../src/protocol/chat.js';
import { CapacityEngine } from '../../../../src/emulator/capacity/capacity-engine.js';
import type { CapacitySpec } from '../../../../src/emulator/model-spec.js';

const FOUR_SLOTS: CapacitySpec = {
  prefillTokensPerS: 1_000_000,
  decodeTokensPerS: 500,
  slots: 4,
  ttftFloorMs: 2,
  jitter: 0,
  cacheSpeedup: 0,
};

interface Served {
  readonly tier: ServiceTierUsed;
  readonly submittedMs: number;
  readonly slotMs: number;
}

let engine: CapacityEngine | undefined;
afterEach(() => engine?.close());

describe('capacity engine: tiers under a closed loop', () => {
  it('starves default and flex alike while priority saturates the slots, then drains default before flex', async () => {
    engine = new CapacityEngine({ capacityOf: (id) => (id === 'm' ? FOUR_SLOTS : undefined) });
    const e = engine;
    const served: Served[] = [];
    let looping = true;
    const streams: Promise<void>[] = [];
    const stream = (tier: ServiceTierUsed): Promise<void> =>
      new Promise((resolve) => {
        const send = (): void => {
          const submittedMs = e.nowMs();
          e.submit(
            { modelId: 'm', tier, inputTokens: 10, cachedTokens: 0, outputTokens: 3, seed: 1, receivedMs: submittedMs },
            {
              onTokens: () => {},
              onFinish: (times) => {
                served.push({ tier, submittedMs, slotMs: times.slotMs });
                // A closed loop: the stream sends its next request as soon as one ends, while the loop runs.
                if (looping && tier === 'priority') send();
                else if (looping) setImmediate(send);
                else resolve();
              },
            },
          );
        };
        send();
      });
    // 8 streams per tier, started interleaved as the runner starts groups: priority, default, flex, ...
    for (let i = 0; i < 8; i++) for (const tier of ['priority', 'default', 'flex'] as const) streams.push(stream(tier));
    await new Promise((resolve) => setTimeout(resolve, 150));
    looping = false;
    await Promise.all(streams);

    const count = (tier: ServiceTierUsed) => served.filter((s) => s.tier === tier).length;
    // The first 4 submissions (p, d, f, p) found free slots; every other default/flex request waited for the drain.
    expect(count('default')).toBe(9);
    expect(count('flex')).toBe(9);
    expect(count('priority')).toBeGreaterThan(40);
    const rank = { priority: 0, default: 1, flex: 2 } as const;
    for (const job of served) {
      const higherWaiting = served.filter(
        (other) => rank[other.tier] < rank[job.tier] && other.submittedMs < job.slotMs && other.slotMs > job.slotMs,
      );
      expect(higherWaiting).toEqual([]);
    }
    // The drain: the 8 queued default jobs all start before the 8 queued flex jobs.
    const lastDefault = Math.max(...served.filter((s) => s.tier === 'default').map((s) => s.slotMs));
    const queuedFlex = served.filter((s) => s.tier === 'flex' && s.slotMs - s.submittedMs > 1);
    expect(queuedFlex).toHaveLength(8);
    for (const flex of queuedFlex) expect(flex.slotMs).toBeGreaterThanOrEqual(lastDefault);
  });
});
