/**
 * The in-process targets of the client benchmark, measured in the client child (client-micro.ts):
 * target 2, cost per event of the client's decoding, recording, measuring and aggregating path; target
 * 7, one 8 MiB event arriving in 1,460-byte pieces.
 */
import type { BigEventParse, CostPerEvent } from './client-micro.js';
import type { SectionContext } from './client-hold-session.js';
import { keptRounds, median, round3, roundCount, targetResult } from './client-rounds.js';
import type { ClientSectionOutcome } from './client-targets.js';

/** A typical answer's length: per-request work is spread over this many events, as in a real run. */
const EVENTS_PER_REQUEST = 256;
const BIG_EVENT_BYTES = 8 * 1024 * 1024;
const PIECE_BYTES = 1460;

export async function measureInProcess(ctx: SectionContext): Promise<ClientSectionOutcome> {
  const requests = ctx.quick ? 100 : 1000;
  const costs: CostPerEvent[] = [];
  const big: BigEventParse[] = [];
  if (ctx.quick) {
    // The one quick round keeps what it measures: compile the paths first, on a small scale.
    await ctx.client.call('costPerEvent', { requests: 20, eventsPerRequest: EVENTS_PER_REQUEST });
    await ctx.client.call('bigEvent', { bytes: BIG_EVENT_BYTES / 8, pieceBytes: PIECE_BYTES });
  }
  for (let round = 0; round < roundCount(ctx.quick); round++) {
    ctx.log(`in-process: ${requests} answers of ${EVENTS_PER_REQUEST} events; one 8 MiB event`);
    costs.push(await ctx.client.call<CostPerEvent>('costPerEvent', { requests, eventsPerRequest: EVENTS_PER_REQUEST }));
    big.push(await ctx.client.call<BigEventParse>('bigEvent', { bytes: BIG_EVENT_BYTES, pieceBytes: PIECE_BYTES }));
  }
  const keptCosts = keptRounds(costs, ctx.quick);
  const keptBig = keptRounds(big, ctx.quick);
  return {
    results: [
      targetResult({
        section: 'in-process',
        target: 'cost per event (framing, timestamp, histogram, token accounting)',
        limit: '<= 2 us',
        unit: 'us',
        values: keptCosts.map((c) => c.usPerEvent),
        meets: (measured) => measured <= 2,
        note: `client CPU per event over ${requests} answers of ${EVENTS_PER_REQUEST} events, one event per read, through the response handler, record finisher and collector (no socket, no HTTP parsing)`,
      }),
      targetResult({
        section: 'in-process',
        target: '8 MiB event in 1,460-byte pieces parsed',
        limit: '<= 50 ms',
        unit: 'ms',
        values: keptBig.map((b) => b.handlerMs),
        meets: (measured) => measured <= 50,
        note: `${keptBig[0]?.pieces ?? 0} pieces through the response handler (framing, JSON.parse, record); the SSE decoder alone ${round3(median(keptBig.map((b) => b.decoderMs)))} ms`,
      }),
    ],
    raw: { costPerEvent: costs, bigEvent: big },
  };
}
