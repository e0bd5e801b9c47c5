/**
 * Many open streams (client benchmark, targets 5 and 6), through the real runner holding long slow
 * streams (held-streams measurement: client-hold-session.ts).
 *
 * Target 5: 5,000 streams (200 with --quick) at 10 tokens/s each. In a window with every stream open by
 * the SERVER's count: the client's event-loop delay p99, its in-flight count against the server's open
 * streams, and RSS and heap per open stream (taken after a full collection, before the run and in the
 * window; the difference divided by the streams).
 *
 * Target 6: client CPU per event at 10, 100 and 1,000 streams (300 with --quick) at the same total rate
 * (10,000 events/s, one event per write), so only the number of streams changes; flat means the largest
 * within 20% of the smallest.
 */
import type { MemoryReading } from './client-hold.js';
import type { SectionContext, HoldMeasurement } from './client-hold-session.js';
import { holdAndMeasure } from './client-hold-session.js';
import { keptRounds, median, round3, roundCount, targetResult } from './client-rounds.js';
import type { ClientSectionOutcome, ClientTargetResult } from './client-targets.js';

const TOKENS_PER_S = 10;
const WARM_STREAMS = 20;
const STREAMS = 5000;
/** --quick: enough open at once to show memory per stream; opening them is most of the section's time. */
const QUICK_STREAMS = 200;
const FLAT_LEVELS = [10, 100, 1000] as const;
/** --quick: opening 1,000 streams takes seconds on a loaded machine (launches are paced); 300 shows the trend. */
const QUICK_FLAT_LEVELS = [10, 100, 300] as const;
const FLAT_TOTAL_EVENTS_PER_S = 10_000;

interface OpenStreamsRound {
  readonly hold: HoldMeasurement;
  readonly baseline: MemoryReading;
}

async function openStreamsRound(ctx: SectionContext, streams: number): Promise<OpenStreamsRound> {
  ctx.log(`open streams: ${streams} streams at ${TOKENS_PER_S} tokens/s`);
  const baseline = await ctx.client.call<MemoryReading>('memory', { gc: true });
  const hold = await holdAndMeasure(ctx, {
    client: 'inferbench',
    streams,
    mode: { kind: 'stream', eventsPerWrite: 1, intervalMs: 1000 / TOKENS_PER_S },
    settleMs: ctx.quick ? 100 : 1000,
    windowMs: ctx.quick ? 250 : 3000,
    gc: true,
    openTimeoutMs: ctx.quick ? 15_000 : 60_000,
  });
  return { hold, baseline };
}

function openStreamsResults(streams: number, rounds: readonly OpenStreamsRound[]): ClientTargetResult[] {
  const section = 'streams';
  const perStreamKb = (r: OpenStreamsRound, of: (m: MemoryReading) => number): number =>
    (of(r.hold.window.memory) - of(r.baseline)) / 1024 / streams;
  const opened = rounds.map(
    (r) => `${r.hold.allOpened ? 'all' : 'NOT all'} open after ${Math.round(r.hold.openedAfterMs)} ms`,
  );
  const whole = rounds.map((r) => r.hold.harness?.event_loop_delay_ms.p99 ?? Number.NaN);
  return [
    targetResult({
      section,
      target: `event-loop delay p99, ${streams} open streams`,
      limit: '<= 10 ms',
      unit: 'ms',
      values: rounds.map((r) => r.hold.window.loopDelayP99Ms),
      meets: (measured) => measured <= 10,
      note: `in the window with every stream open (${opened.join('; ')}); over the whole run, opening included: p99 ${whole.join('/')} ms`,
    }),
    targetResult({
      section,
      target: `in flight = target, ${streams} streams (server's count)`,
      limit: `= ${streams}`,
      unit: 'streams',
      values: rounds.map((r) => r.hold.serverOpen),
      meets: () => rounds.every((r) => r.hold.serverOpen === streams && r.hold.window.inFlight === streams),
      note: `server open ${rounds.map((r) => r.hold.serverOpen).join('/')}, client in flight ${rounds.map((r) => r.hold.window.inFlight).join('/')}`,
    }),
    targetResult({
      section,
      target: `RSS per open stream, ${streams} streams`,
      limit: '<= 20 KB',
      unit: 'KB',
      values: rounds.map((r) => perStreamKb(r, (m) => m.rssBytes - m.youngBytes)),
      meets: (measured) => measured <= 20,
      note: `after a full GC, in the window minus before the run, divided by the streams; the young generation left out (RSS with it: ${rounds.map((r) => round3(perStreamKb(r, (m) => m.rssBytes))).join('/')} KB)`,
    }),
    targetResult({
      section,
      target: `heap per open stream, ${streams} streams`,
      limit: '<= 8 KB',
      unit: 'KB',
      values: rounds.map((r) => perStreamKb(r, (m) => m.heapUsedBytes)),
      meets: (measured) => measured <= 8,
      note: 'heap in use after a full GC, in the window minus before the run, divided by the streams',
    }),
  ];
}

async function flatCost(ctx: SectionContext): Promise<{ result: ClientTargetResult; raw: unknown }> {
  const perLevel = new Map<number, HoldMeasurement[]>();
  const levels = ctx.quick ? QUICK_FLAT_LEVELS : FLAT_LEVELS;
  for (let round = 0; round < roundCount(ctx.quick); round++) {
    for (const streams of levels) {
      ctx.log(`cost per event: ${streams} streams, ${FLAT_TOTAL_EVENTS_PER_S} events/s in all`);
      const hold = await holdAndMeasure(ctx, {
        client: 'inferbench',
        streams,
        mode: { kind: 'stream', eventsPerWrite: 1, intervalMs: (streams * 1000) / FLAT_TOTAL_EVENTS_PER_S },
        settleMs: ctx.quick ? 100 : 1000,
        windowMs: ctx.quick ? 250 : 3000,
        gc: false,
        openTimeoutMs: 20_000,
      });
      perLevel.set(streams, [...(perLevel.get(streams) ?? []), hold]);
    }
  }
  const usPerEvent = (m: HoldMeasurement): number =>
    m.window.events > 0 ? m.window.cpuUs / m.window.events : Number.NaN;
  const levelRounds = levels.map((streams) => keptRounds(perLevel.get(streams) ?? [], ctx.quick).map(usPerEvent));
  const spreads = (levelRounds[0] ?? []).map((_, i) => {
    const costs = levelRounds.map((rounds) => rounds[i] as number);
    return Math.max(...costs) / Math.min(...costs);
  });
  const medians = levelRounds.map((rounds) => round3(median(rounds)));
  const result = targetResult({
    section: 'streams',
    target: `cost per event flat, ${levels.join(' / ')} streams (largest / smallest)`,
    limit: '<= 1.2 x',
    unit: 'x',
    values: spreads,
    meets: (measured) => measured <= 1.2,
    note: `client CPU per event ${medians.join(' / ')} us at ${levels.join(' / ')} streams, ${FLAT_TOTAL_EVENTS_PER_S} events/s in all`,
  });
  return { result, raw: { levels, usPerEvent: levelRounds, runs: Object.fromEntries(perLevel) } };
}

/** Targets 5 and 6 (see the file comment). */
export async function measureOpenStreams(ctx: SectionContext): Promise<ClientSectionOutcome> {
  const streams = ctx.quick ? QUICK_STREAMS : STREAMS;
  // A few streams first, in this fresh child: what the first request of a run sets up once (modules,
  // pools, compiled code) is no stream's memory.
  ctx.log(`open streams: ${WARM_STREAMS} streams to warm up`);
  await holdAndMeasure(ctx, {
    client: 'inferbench',
    streams: WARM_STREAMS,
    mode: { kind: 'stream', eventsPerWrite: 1, intervalMs: 1000 / TOKENS_PER_S },
    settleMs: 0,
    windowMs: 100,
    gc: false,
    openTimeoutMs: 10_000,
  });
  const rounds: OpenStreamsRound[] = [];
  for (let round = 0; round < roundCount(ctx.quick); round++) rounds.push(await openStreamsRound(ctx, streams));
  const kept = keptRounds(rounds, ctx.quick);
  const flat = await flatCost(ctx);
  return {
    results: [...openStreamsResults(streams, kept), flat.result],
    raw: { streams, tokensPerS: TOKENS_PER_S, openStreams: rounds, flatCost: flat.raw },
  };
}
