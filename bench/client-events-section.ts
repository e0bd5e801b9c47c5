/**
 * Streamed events absorbed (client benchmark, target 1): how many SSE events per second the client's core
 * takes in, inferbench's real runner against the bare undici sink, alternating, from the same server.
 *
 * The server holds STREAMS long streams and writes them token events at an offered pace, 1 event per
 * write (paced so that the client can follow: then each read carries about one event) or 16 per write
 * (writes may coalesce; 16 or more per read). Measured in a window with every stream open: events the
 * client absorbed per second of its own CPU time (events / CPU seconds: what its one core absorbs at full
 * use, unaffected by other work sharing the machine), with the events each read actually carried.
 */
import type { ClientSectionOutcome, ClientTargetResult } from './client-targets.js';
import { type HoldMeasurement, holdAndMeasure, type SectionContext } from './client-hold-session.js';
import { alternate, keptRounds, median, round3, roundCount, targetResult } from './client-rounds.js';

const STREAMS = 8;

interface Case {
  readonly label: string;
  readonly eventsPerWrite: number;
  /** Offered events per second over all streams. */
  readonly offeredPerS: number;
  readonly limitPerS: number;
}

const CASES: readonly Case[] = [
  { label: '1 event per read', eventsPerWrite: 1, offeredPerS: 60_000, limitPerS: 100_000 },
  { label: '16+ events per read', eventsPerWrite: 16, offeredPerS: 320_000, limitPerS: 250_000 },
];
const MIN_RATIO = 0.85;

function perCpuSecond(m: HoldMeasurement): number {
  return m.window.cpuUs > 0 ? m.window.events / (m.window.cpuUs / 1e6) : Number.NaN;
}

function eventsPerRead(m: HoldMeasurement): number {
  return m.window.reads > 0 ? m.window.events / m.window.reads : Number.NaN;
}

/** Facts of the kept rounds of one client, for the note and the JSON. */
function summary(rounds: readonly HoldMeasurement[]) {
  return {
    eventsPerCpuS: rounds.map(perCpuSecond),
    eventsPerRead: round3(median(rounds.map(eventsPerRead))),
    wallEventsPerS: round3(median(rounds.map((m) => m.window.events / (m.window.wallMs / 1000)))),
    cpuUse: round3(median(rounds.map((m) => m.window.cpuUs / 1000 / m.window.wallMs))),
    serverEventsPerS: round3(median(rounds.map((m) => m.serverEvents / (m.window.wallMs / 1000)))),
  };
}

async function measureCase(ctx: SectionContext, c: Case) {
  const intervalMs = (STREAMS * c.eventsPerWrite * 1000) / c.offeredPerS;
  const hold = (client: 'inferbench' | 'sink') => (): Promise<HoldMeasurement> => {
    ctx.log(`events: ${c.label}, ${client}, ${STREAMS} streams, offered ${c.offeredPerS}/s`);
    return holdAndMeasure(ctx, {
      client,
      streams: STREAMS,
      mode: { kind: 'stream', eventsPerWrite: c.eventsPerWrite, intervalMs },
      settleMs: ctx.quick ? 100 : 500,
      windowMs: ctx.quick ? 200 : 3000,
      gc: false,
      openTimeoutMs: 10_000,
    });
  };
  const [ib, sink] = await alternate(roundCount(ctx.quick), [hold('inferbench'), hold('sink')]);
  const inferbench = summary(keptRounds(ib as HoldMeasurement[], ctx.quick));
  const comparator = summary(keptRounds(sink as HoldMeasurement[], ctx.quick));
  const result: ClientTargetResult = targetResult({
    section: 'events',
    target: `events absorbed, ${c.label}`,
    limit: `>= ${c.limitPerS} /s and >= ${MIN_RATIO * 100}% of sink`,
    unit: 'events/s',
    values: inferbench.eventsPerCpuS,
    comparator: 'sink',
    comparatorValues: comparator.eventsPerCpuS,
    meets: (measured, ratio) => measured >= c.limitPerS && ratio !== null && ratio >= MIN_RATIO,
    note:
      `per second of client CPU; events per read: inferbench ${inferbench.eventsPerRead}, sink ${comparator.eventsPerRead}; ` +
      `offered ${c.offeredPerS}/s, absorbed ${inferbench.wallEventsPerS}/s at ${Math.round(inferbench.cpuUse * 100)}% CPU (sink ${comparator.wallEventsPerS}/s at ${Math.round(comparator.cpuUse * 100)}%)`,
  });
  return { result, raw: { case: c, streams: STREAMS, intervalMs, inferbench, sink: comparator } };
}

/** Target 1: both cases (see the file comment). */
export async function measureEventsAbsorbed(ctx: SectionContext): Promise<ClientSectionOutcome> {
  const results: ClientTargetResult[] = [];
  const raw: unknown[] = [];
  for (const c of CASES) {
    const measured = await measureCase(ctx, c);
    results.push(measured.result);
    raw.push(measured.raw);
  }
  return { results, raw };
}
