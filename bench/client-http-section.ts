/**
 * Plain HTTP (client benchmark, target 3): non-streamed chat requests per second at 64 connections
 * against the fixed-answer server, inferbench's real runner (closed loop of 64, the summary's
 * requests_per_s over its measured window) against autocannon (programmatic, in the same client child)
 * and wrk (pinned to the same core), alternating in every round. The target is >= 90% of autocannon;
 * wrk is shown for reference (a C client: what the core allows).
 */
import type { HarnessHealth } from '../src/metrics/run-summary.js';
import type { SectionContext } from './client-hold-session.js';
import { comparatorBody, plainHttpProfile } from './client-profiles.js';
import { alternate, keptRounds, round3, roundCount, targetResult, unmeasured } from './client-rounds.js';
import type { ClientSectionOutcome, ClientTargetResult } from './client-targets.js';
import { runWrk, wrkAvailable } from './client-wrk.js';

const CONNECTIONS = 64;
const MIN_RATIO = 0.9;

interface PlainRun {
  readonly requestsPerS: number;
  readonly failed?: number;
  readonly cpu?: number;
}

export async function measurePlainHttp(ctx: SectionContext): Promise<ClientSectionOutcome> {
  const durationS = ctx.quick ? 1 : 4;
  const body = comparatorBody(false);
  const haveWrk = wrkAvailable();
  const inferbench = async (): Promise<PlainRun> => {
    ctx.log(`plain HTTP: inferbench, ${CONNECTIONS} connections, ${durationS} s`);
    const run = await ctx.client.call<{
      requests: { ok: number; failed: number };
      throughput: { requests_per_s: number };
      harness: HarnessHealth;
    }>('runProfile', {
      url: ctx.url,
      profileText: plainHttpProfile(ctx.url, CONNECTIONS, durationS, ctx.quick ? 0.2 : 1),
    });
    return {
      requestsPerS: run.throughput.requests_per_s,
      failed: run.requests.failed,
      cpu: run.harness.cpu_utilization,
    };
  };
  const autocannon = async (): Promise<PlainRun> => {
    ctx.log(`plain HTTP: autocannon, ${CONNECTIONS} connections, ${durationS} s`);
    const run = await ctx.client.call<{ requestsPerS: number; errors: number; non2xx: number }>('autocannon', {
      url: ctx.url,
      connections: CONNECTIONS,
      durationS,
      body,
    });
    return { requestsPerS: run.requestsPerS, failed: run.errors + run.non2xx };
  };
  const wrkErrors: string[] = [];
  const wrk = async (): Promise<PlainRun> => {
    ctx.log(`plain HTTP: wrk, ${CONNECTIONS} connections, ${durationS} s`);
    try {
      return { requestsPerS: (await runWrk(ctx.plan, ctx.url, CONNECTIONS, durationS, body)).requestsPerS };
    } catch (error) {
      // A reference that failed is a line that says so, not a failed section.
      wrkErrors.push(error instanceof Error ? error.message : String(error));
      return { requestsPerS: Number.NaN };
    }
  };
  const runs = haveWrk ? [inferbench, autocannon, wrk] : [inferbench, autocannon];
  const rounds = await alternate(roundCount(ctx.quick), runs);
  const kept = rounds.map((r) => keptRounds(r, ctx.quick));
  const values = (which: number): number[] =>
    (kept[which] ?? []).map((r) => r.requestsPerS).filter((v) => Number.isFinite(v));
  const failed = (kept[0] ?? []).reduce((sum, r) => sum + (r.failed ?? 0), 0);
  const cpu = (kept[0] ?? []).map((r) => r.cpu ?? 0);
  const results: ClientTargetResult[] = [
    targetResult({
      section: 'plain-http',
      target: `plain chat req/s, ${CONNECTIONS} connections, vs autocannon`,
      limit: `>= ${MIN_RATIO * 100}% of autocannon`,
      unit: 'req/s',
      values: values(0),
      comparator: 'autocannon',
      comparatorValues: values(1),
      meets: (_measured, ratio) => ratio !== null && ratio >= MIN_RATIO,
      note: `inferbench failed requests ${failed}, its CPU ${cpu.map((c) => round3(c)).join('/')} of a core`,
    }),
    haveWrk
      ? {
          ...targetResult({
            section: 'plain-http',
            target: `plain chat req/s, ${CONNECTIONS} connections, vs wrk`,
            limit: 'reference',
            unit: 'req/s',
            values: values(0),
            comparator: 'wrk',
            comparatorValues: values(2),
            meets: () => true,
            note:
              wrkErrors.length === 0
                ? 'wrk (C, one thread) for reference; no target'
                : `wrk failed: ${wrkErrors[0]?.split('\n')[0]}`,
          }),
          // A reference, not a target: nothing to meet.
          met: null,
        }
      : unmeasured(
          'plain-http',
          `plain chat req/s, ${CONNECTIONS} connections, vs wrk`,
          'reference',
          'req/s',
          'wrk is not installed (Debian package wrk)',
        ),
  ];
  const [ib, ac, wr] = rounds;
  return { results, raw: { connections: CONNECTIONS, durationS, inferbench: ib, autocannon: ac, wrk: wr ?? null } };
}
