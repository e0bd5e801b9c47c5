/**
 * Open loop (client benchmark, target 4): Poisson arrivals of short streams (role, 4 tokens, final, in
 * one write from the fixed-answer server) at 1,000, 3,000 and 5,000 per second, through the real runner.
 * Lateness is the run's own schedule lag (harness health: actual send - intended start), p99; arrivals
 * dropped are the run's `dropped` count, with max_concurrency 1000 far above what these rates keep in
 * flight (so nothing may be dropped).
 */
import type { HarnessHealth } from '../src/metrics/run-summary.js';
import type { SectionContext } from './client-hold-session.js';
import { openLoopProfile } from './client-profiles.js';
import { keptRounds, round3, roundCount, targetResult } from './client-rounds.js';
import type { ClientSectionOutcome, ClientTargetResult } from './client-targets.js';

const RATES = [1000, 3000, 5000] as const;
const LAG_LIMIT_MS = 2;

interface OpenRun {
  readonly requests: { ok: number; failed: number; dropped: number };
  readonly harness: HarnessHealth;
}

export async function measureOpenLoop(ctx: SectionContext): Promise<ClientSectionOutcome> {
  const durationS = ctx.quick ? 0.25 : 5;
  const warmupS = ctx.quick ? 0.1 : 1;
  const byRate = new Map<number, OpenRun[]>();
  for (let round = 0; round < roundCount(ctx.quick); round++) {
    for (const rate of RATES) {
      ctx.log(`open loop: ${rate} arrivals/s, ${durationS} s`);
      const run = await ctx.client.call<OpenRun>('runProfile', {
        url: ctx.url,
        profileText: openLoopProfile(ctx.url, rate, durationS, warmupS),
      });
      byRate.set(rate, [...(byRate.get(rate) ?? []), run]);
    }
  }
  const results: ClientTargetResult[] = [];
  let dropped = 0;
  const droppedValues: number[] = [];
  for (const rate of RATES) {
    const kept = keptRounds(byRate.get(rate) ?? [], ctx.quick);
    const rateDropped = kept.map((r) => r.requests.dropped);
    dropped += rateDropped.reduce((a, b) => a + b, 0);
    const failed = kept.reduce((sum, r) => sum + r.requests.failed, 0);
    results.push(
      targetResult({
        section: 'open-loop',
        target: `lateness p99 at ${rate} arrivals/s (Poisson, 4-token streams)`,
        limit: `<= ${LAG_LIMIT_MS} ms`,
        unit: 'ms',
        values: kept.map((r) => r.harness.schedule_lag_ms.p99),
        meets: (measured) => measured <= LAG_LIMIT_MS,
        note: `dropped ${rateDropped.join('/')}, failed ${failed}, event-loop delay p99 ${kept.map((r) => r.harness.event_loop_delay_ms.p99).join('/')} ms, CPU ${kept.map((r) => round3(r.harness.cpu_utilization)).join('/')}`,
      }),
    );
  }
  for (let i = 0; i < roundCount(ctx.quick); i++) {
    droppedValues.push(RATES.reduce((sum, rate) => sum + (byRate.get(rate)?.[i]?.requests.dropped ?? 0), 0));
  }
  results.push(
    targetResult({
      section: 'open-loop',
      target: 'arrivals dropped up to 5000/s (max_concurrency 1000)',
      limit: '= 0',
      unit: 'arrivals',
      values: keptRounds(droppedValues, ctx.quick),
      meets: (measured) => measured === 0 && dropped === 0,
      note: `dropped over every rate in a round, kept rounds; total ${dropped}`,
    }),
  );
  return { results, raw: { rates: RATES, durationS, warmupS, runs: Object.fromEntries(byRate) } };
}
