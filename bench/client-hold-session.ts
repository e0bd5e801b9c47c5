/**
 * What the sections of the client benchmark share: the two pinned children (target server, client under
 * test) and one held-streams measurement driven from the parent. The parent sets the server's stream
 * pace, has the client open `streams` streams, waits until the SERVER counts them all open (the truth
 * for "in flight"), lets launch settle, measures a window in the client (CPU, events, reads, loop delay,
 * memory) with the server's own counts around it, then has the server end every stream and waits for
 * the client's run to finish.
 */
import type { HarnessHealth } from '../src/metrics/run-summary.js';
import type { HoldWindow } from './client-hold.js';
import type { PinnedProcess, PinningPlan } from './client-pinned-process.js';
import { sleep } from './client-rounds.js';
import type { TargetMode, TargetStats } from './client-target-server.js';

export interface SectionContext {
  readonly quick: boolean;
  log(line: string): void;
  readonly plan: PinningPlan;
  readonly server: PinnedProcess;
  readonly client: PinnedProcess;
  /** The target server's base URL. */
  readonly url: string;
}

export interface HoldSpec {
  readonly client: 'inferbench' | 'sink';
  readonly streams: number;
  readonly mode: Extract<TargetMode, { kind: 'stream' }>;
  /** After the server counts every stream open, before the window. */
  readonly settleMs: number;
  readonly windowMs: number;
  /** Collect garbage before the window's memory reading. */
  readonly gc: boolean;
  /** Give up waiting for every stream to open after this long (then measured anyway, and said). */
  readonly openTimeoutMs: number;
}

export interface HoldMeasurement {
  readonly window: HoldWindow;
  /** The server's open streams when the window ended. */
  readonly serverOpen: number;
  /** Events the server wrote during the window. */
  readonly serverEvents: number;
  /** Streams every one opened before the window began. */
  readonly allOpened: boolean;
  readonly openedAfterMs: number;
  readonly harness: HarnessHealth | null;
}

/** One held-streams measurement (see the file comment). */
export async function holdAndMeasure(ctx: SectionContext, spec: HoldSpec): Promise<HoldMeasurement> {
  const { server, client } = ctx;
  await server.call('configure', spec.mode);
  await server.call('resetStats');
  const openStarted = performance.now();
  await client.call('holdStart', { client: spec.client, url: ctx.url, streams: spec.streams });
  let allOpened = false;
  try {
    while (performance.now() - openStarted < spec.openTimeoutMs) {
      const stats = await server.call<TargetStats>('stats');
      if (stats.openStreams >= spec.streams) {
        allOpened = true;
        break;
      }
      await sleep(50);
    }
    const openedAfterMs = performance.now() - openStarted;
    ctx.log(`  ${allOpened ? 'all' : 'NOT all'} ${spec.streams} streams open after ${Math.round(openedAfterMs)} ms`);
    await sleep(spec.settleMs);
    const before = await server.call<TargetStats>('stats');
    await client.call('windowStart');
    await sleep(spec.windowMs);
    const during = await server.call<TargetStats>('stats');
    const window = await client.call<HoldWindow>('windowEnd', { gc: spec.gc });
    await server.call('finish');
    const finished = await client.call<{ harness: HarnessHealth } | null>('holdFinish');
    return {
      window,
      serverOpen: during.openStreams,
      serverEvents: during.events - before.events,
      allOpened,
      openedAfterMs,
      harness: finished?.harness ?? null,
    };
  } finally {
    await server.call('finish');
    await server.call('configure', { kind: 'fixed' });
  }
}
