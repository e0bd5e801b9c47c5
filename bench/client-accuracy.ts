/**
 * The TTFT-accuracy section of `npm run bench client` (issue "never the bottleneck", item 1): at closed
 * loops of 64, 256 and 512 streams, how far the TTFT inferbench reports is from what the known-timing
 * server really did (accuracy-ttft-error.ts: on the wire's terms), p50 and p99, against vLLM's own
 * benchmark request function measured in the same run; and the garbage-collection pauses over 5 ms of
 * inferbench during its measured 512-stream rounds.
 *
 * The server runs pinned to core 0, each client under test in its own process pinned to core 1
 * (accuracy-cpu-pin.ts), one at a time, while this process only waits. Rounds alternate between the two
 * clients (the order flipping each round, so neither always follows the other), the first of each is
 * discarded; a row gives the median of the kept rounds and their range. The server sends no role-only
 * chunk here: vLLM's function stamps its TTFT at the first chunk with choices, role-only included (vLLM's
 * own server sends its role with the first token), so a role chunk at once would make it measure
 * something else; inferbench ignores role-only chunks either way.
 */
import type { ClientSectionOptions, ClientSectionOutcome, ClientTargetResult } from './client-targets.js';
import { canPin } from './cpu-pin.js';
import { runClientRound } from './accuracy-client-job.js';
import { measuredGc, type MeasuredGc } from './accuracy-gc-pauses.js';
import { median } from './accuracy-quantiles.js';
import { ServerProcess } from './accuracy-server.js';
import { inferbenchTtftError, type TtftErrorSummary, vllmTtftError } from './accuracy-ttft-error.js';
import { runVllmRound, vllmComparatorMissing } from './accuracy-vllm-job.js';
import type { HarnessHealth } from '../src/metrics/run-summary.js';

const SECTION = 'accuracy';
const COMPARATOR = 'vllm request fn';
const TTFT_MS = 50;
const ITL_MS = 10;
const TOKENS = 32;
const SERVER_CORE = 0;
const CLIENT_CORE = 1;
/** The issue's bound on a single pause during the measured 512-stream run. */
const GC_PAUSE_LIMIT_MS = 5;

/** One closed-loop level: streams, the issue's p99 limit, warmup and measured requests per round. */
export interface AccuracyLevel {
  readonly streams: number;
  readonly p99LimitMs: number;
  readonly warmup: number;
  readonly requests: number;
}

/** How the section runs: levels, rounds per client (the first `discard` dropped), the child's node flags. */
export interface AccuracyPlan {
  readonly levels: readonly AccuracyLevel[];
  readonly rounds: number;
  readonly discard: number;
  /** Node flags of inferbench's child (default: this process's own, those of the bench script). */
  readonly nodeFlags?: readonly string[];
  /** Run the comparator's rounds too (default true; off for experiments on inferbench alone). */
  readonly comparator?: boolean;
}

/** A level whose every stream sends `warmupPer` warmup requests (connections, JIT, the tokenizer), then `measuredPer` measured ones. */
const level = (streams: number, p99LimitMs: number, warmupPer: number, measuredPer: number): AccuracyLevel => ({
  streams,
  p99LimitMs,
  warmup: streams * warmupPer,
  requests: streams * measuredPer,
});

/** 2 warmup and 6 measured requests per stream (about 0.7 + 2.2 s a round), 4 rounds per client. */
export const FULL_PLAN: AccuracyPlan = {
  levels: [level(64, 2, 2, 6), level(256, 5, 2, 6), level(512, 12, 2, 6)],
  rounds: 4,
  discard: 1,
};
/** The test suite's: one short round at 64 and 256, to show the table is produced (never its timings). */
export const QUICK_PLAN: AccuracyPlan = { levels: [level(64, 2, 1, 1), level(256, 5, 1, 1)], rounds: 1, discard: 0 };

interface InferbenchRound {
  readonly error: TtftErrorSummary;
  readonly gc: MeasuredGc;
  readonly harness: HarnessHealth;
  readonly pinned: boolean;
}

interface LevelOutcome {
  readonly level: AccuracyLevel;
  readonly inferbench: InferbenchRound[];
  readonly vllm: TtftErrorSummary[];
}

export async function measureClientAccuracy(options: ClientSectionOptions): Promise<ClientSectionOutcome> {
  return runAccuracySection(options, options.quick ? QUICK_PLAN : FULL_PLAN);
}

/** Runs `plan` (the section's own, or another for an experiment) and returns its rows and raw numbers. */
export async function runAccuracySection(
  options: ClientSectionOptions,
  plan: AccuracyPlan,
): Promise<ClientSectionOutcome> {
  const missing = plan.comparator === false ? 'not asked for' : vllmComparatorMissing();
  if (missing !== null) options.log(`${SECTION}: comparator missing: ${missing}`);
  const server = new ServerProcess(
    { ttftMs: TTFT_MS, itlMs: ITL_MS, tokens: TOKENS, roleChunk: false, traceRequests: true, model: 'known-timing' },
    SERVER_CORE,
  );
  const outcomes: LevelOutcome[] = [];
  try {
    const url = await server.url();
    for (const level of plan.levels) outcomes.push(await runLevel(server, url, level, plan, missing === null, options));
  } finally {
    await server.close();
  }
  const pinning =
    server.pinned && canPin() ? 'server on core 0, clients on core 1 (taskset)' : 'unpinned (no taskset or one core)';
  const results = outcomes.flatMap((outcome) => errorRows(outcome, plan, missing, pinning));
  const largest = outcomes.at(-1);
  if (largest !== undefined) results.push(gcRow(largest, plan));
  return {
    results,
    raw: {
      settings: {
        ttftMs: TTFT_MS,
        itlMs: ITL_MS,
        tokens: TOKENS,
        roleChunk: false,
        plan,
        pinning,
        execArgv: process.execArgv,
      },
      comparator_missing: missing,
      levels: outcomes,
    },
  };
}

async function runLevel(
  server: ServerProcess,
  url: string,
  level: AccuracyLevel,
  plan: AccuracyPlan,
  withComparator: boolean,
  options: ClientSectionOptions,
): Promise<LevelOutcome> {
  const outcome: LevelOutcome = { level, inferbench: [], vllm: [] };
  for (let round = 0; round < plan.rounds; round++) {
    const ours = async (): Promise<void> => {
      await server.reset();
      const result = await runClientRound(
        { profileText: profileText(url, level), url },
        {
          core: CLIENT_CORE,
          ...(plan.nodeFlags === undefined ? {} : { nodeFlags: plan.nodeFlags }),
        },
      );
      const { traces } = await server.stats();
      const error = inferbenchTtftError(result, traces);
      const gc = measuredGc(result, GC_PAUSE_LIMIT_MS);
      outcome.inferbench.push({ error, gc, harness: result.harness, pinned: result.pinned });
      options.log(
        `${SECTION} ${level.streams} streams, round ${round}: inferbench ${describe(error)}; gc over ${GC_PAUSE_LIMIT_MS} ms: ${gc.over}, longest ${gc.longest?.durationMs.toFixed(1) ?? '-'} ms`,
      );
    };
    const theirs = async (): Promise<void> => {
      await server.reset();
      const tag = `accuracy ${level.streams} round ${round}`;
      const job = {
        url,
        concurrency: level.streams,
        requests: level.requests,
        warmup: level.warmup,
        maxTokens: TOKENS,
        tag,
      };
      const requests = await runVllmRound(job, CLIENT_CORE);
      const error = vllmTtftError(requests, (await server.stats()).traces);
      outcome.vllm.push(error);
      options.log(`${SECTION} ${level.streams} streams, round ${round}: ${COMPARATOR} ${describe(error)}`);
    };
    const order = withComparator ? (round % 2 === 0 ? [ours, theirs] : [theirs, ours]) : [ours];
    for (const run of order) await run();
  }
  return outcome;
}

function describe(error: TtftErrorSummary): string {
  return `TTFT error p50 ${error.errorP50Ms.toFixed(2)} p99 ${error.errorP99Ms.toFixed(2)} ms (${error.matched}/${error.requests} matched, ${error.failed} failed)`;
}

function profileText(url: string, level: AccuracyLevel): string {
  return `
name: client-accuracy
target: { base_url: "${url}" }
scenarios:
  - name: accuracy
    models: [known-timing]
    load: { mode: concurrency, concurrency: ${level.streams} }
    requests: ${level.requests}
    warmup_requests: ${level.warmup}
    request: { max_completion_tokens: ${TOKENS} }
    prompt: { input_tokens: 16 }
`;
}

function kept<T>(rounds: readonly T[], plan: AccuracyPlan): readonly T[] {
  return rounds.length > plan.discard ? rounds.slice(plan.discard) : rounds;
}

function spread(values: readonly number[]): [number, number] | null {
  return values.length > 1 ? [Math.min(...values), Math.max(...values)] : null;
}

/** The level's p50 and p99 rows: inferbench's median of kept rounds against the limit and the comparator. */
function errorRows(
  outcome: LevelOutcome,
  plan: AccuracyPlan,
  missing: string | null,
  pinning: string,
): ClientTargetResult[] {
  const { streams, p99LimitMs } = outcome.level;
  const ours = kept(outcome.inferbench, plan).map((r) => r.error);
  const theirs = kept(outcome.vllm, plan);
  const incomplete = [...ours, ...theirs].some((e) => e.matched < e.requests);
  return (['p50', 'p99'] as const).map((q) => {
    const pick = (e: TtftErrorSummary): number => (q === 'p50' ? e.errorP50Ms : e.errorP99Ms);
    const measured = median(ours.map(pick));
    const comparator = theirs.length > 0 ? median(theirs.map(pick)) : null;
    const underLimit = q === 'p50' ? true : measured <= p99LimitMs;
    const notes = [
      missing === null ? null : `comparator not measured: ${missing}`,
      incomplete ? 'some requests failed or were not found in the server traces' : null,
      `${ours.length} kept round(s) each; ${pinning}`,
    ];
    return {
      section: SECTION,
      target: `TTFT error ${q}, closed loop ${streams} streams`,
      limit: q === 'p50' ? `< ${COMPARATOR}` : `<= ${p99LimitMs} ms and < ${COMPARATOR}`,
      measured: Number.isNaN(measured) ? null : measured,
      range: spread(ours.map(pick)),
      unit: 'ms',
      comparator: COMPARATOR,
      comparatorMeasured: comparator,
      ratio: comparator === null || comparator === 0 ? null : measured / comparator,
      met: comparator === null || Number.isNaN(measured) ? null : underLimit && measured < comparator,
      note: notes.filter((n) => n !== null).join('; '),
    };
  });
}

/** Pauses over 5 ms in the measured part of the largest level's kept rounds (perf_hooks 'gc' entries). */
function gcRow(outcome: LevelOutcome, plan: AccuracyPlan): ClientTargetResult {
  const rounds = kept(outcome.inferbench, plan);
  const over = rounds.map((r) => r.gc.over);
  const longest = Math.max(0, ...rounds.map((r) => r.gc.longest?.durationMs ?? 0));
  const streams = outcome.level.streams;
  const flags = (plan.nodeFlags ?? process.execArgv).join(' ') || 'node defaults';
  return {
    section: SECTION,
    target: `GC pauses over ${GC_PAUSE_LIMIT_MS} ms during the measured ${streams}-stream run`,
    limit: '0',
    measured: over.length > 0 ? median(over) : null,
    range: spread(over),
    unit: 'pauses',
    comparator: null,
    comparatorMeasured: null,
    ratio: null,
    // Met only when no kept round had one; at fewer than 512 streams (quick) it is not judged.
    met: streams < 512 || over.length === 0 ? null : over.every((n) => n === 0),
    note: `perf_hooks 'gc' entries in inferbench's process (${flags}); longest pause ${longest.toFixed(1)} ms${streams < 512 ? `; quick: ${streams} streams, not 512` : ''}`,
  };
}
