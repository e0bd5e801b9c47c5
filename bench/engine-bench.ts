/**
 * `npm run bench engine` (issue 24): inferbench against a real engine, llama.cpp (node-llama-cpp, CPU, one
 * thread) serving a generated 4.5M-parameter llama behind test/helpers/engine/engine-server.ts.
 *
 * - `stamps`: `inferbench run` (the real CLI, in-process) in closed loop, 1 stream and 4 streams on the
 *   engine's 2 sequences; its requests.csv joined by request id (x-request-id) with the engine's log, and
 *   the harness's TTFT and E2E minus the engine's own (engine-stamps.ts says what each side measures).
 *   Twice: the engine in this process (one performance.now() clock, one event loop shared with the
 *   harness), then in a child process (test/helpers/engine/engine-process.ts, niced; the errors are differences of durations,
 *   each on its own process's monotonic clock, so no offset between the clocks enters).
 *   Every answer is whole words (logit_bias on word tokens), so every token the engine yields is sent at
 *   once: no token held back as a partial UTF-8 character.
 * - `capacity`, on the child engine (in this process its CPU would count as the harness's and spoil every
 *   step): `inferbench capacity` (Poisson arrivals, TTFT p90 under 200 ms, errors under 10%; a search the
 *   busy harness ended INCONCLUSIVE is run again with the next seed, twice at most), then a brute-force
 *   sweep of the same engine: one `inferbench run` per rate, up from 0.6x the search's answer in steps of
 *   10% of it (20% with --quick) until two steps in a row failed (one with --quick), or down from 0.6x
 *   while every step failed, each a 5 s warmup (3 s) then `--duration` (default 15 s, 8 s with --quick), judged as the search counts exceedances: at
 *   most 10% of its measured requests over the limit, a failed request counting as over. The time each
 *   took (the search's with the spoiled ones before it).
 *
 * `--skip stamps` or `--skip capacity` leaves a part out. The default run takes 4 to 10 minutes on 2 busy
 * cores (most of it spoiled searches run again), --quick 2 to 4.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CliContext } from '../src/cli/context.js';
import { runCli } from '../src/cli/run-cli.js';
import { packageRoot } from '../src/cli/package-root.js';
import type { CapacityGroupSummary, CapacitySummary } from '../src/metrics/capacity-summary.js';
import { parseCsvRecords } from '../src/util/csv-records.js';
import { parseDurationMs } from '../src/util/duration.js';
import { loadHfTokenizer } from '../src/util/hf-tokenizer.js';
import { startEngineProcess } from '../test/helpers/engine/engine-process.js';
import { type EngineServerOptions, startEngineServer } from '../test/helpers/engine/engine-server.js';
import { wholeWordTokens, writeTinyLlama } from '../test/helpers/engine/tiny-llama-gguf.js';
import type { BenchContext, BenchOutcome, BenchRow, Benchmark } from './benchmark.js';
import {
  type EngineStamps,
  type ErrorStats,
  errorStats,
  harnessRequests,
  type JoinResult,
  joinStamps,
  nextSweepRate,
  type SweepAnswer,
  type SweepStep,
  sweepAnswer,
  sweepStep,
} from './engine-stamps.js';

/** The model (4.5M parameters, as the engine tests' larger one) and the engine. */
const MODEL = { embedding: 256, layers: 4, seed: 7 } as const;
const SEQUENCES = 2;
const PROMPT_TOKENS = 64;
const OUTPUT_TOKENS = 24;
/** The capacity SLO: TTFT p90 under this, errors under 10%. */
const TTFT_P90_MS = 200;
const ALLOWED_SHARE = 0.1;
const MAX_ERROR_RATE = 0.1;
/** The fixture the model's vocabulary comes from, and the harness's `target.tokenizer` (from dist-bench/ too). */
const TOKENIZER = join(packageRoot(), 'test', 'fixtures', 'tokenizers', 'tiny-bytelevel-bpe.json');

class Memory extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += String(chunk);
    callback();
  }
}

/** The CLI in-process; throws on a non-zero exit. */
async function cli(dir: string, argv: readonly string[]): Promise<void> {
  const ctx: CliContext = {
    stdout: new Memory(),
    stderr: new Memory(),
    env: {},
    cwd: dir,
    interrupt: new AbortController().signal,
    exitCode: 0,
  };
  const code = await runCli([...argv], ctx);
  if (code !== 0) throw new Error(`inferbench ${argv[0]} exited ${code}: ${(ctx.stderr as Memory).text}`);
}

/** Token ids the fixture encodes as themselves alone and in any sequence: whole words (" the", ...). */
async function wordTokens(): Promise<number[]> {
  return wholeWordTokens((await loadHfTokenizer(TOKENIZER)).encode, TOKENIZER);
}

interface Setup {
  readonly dir: string;
  /** The `request:` of every scenario (streaming, greedy, whole words, a fixed length). */
  readonly request: string;
}

/** The engine server, in this process or in a child. */
interface EngineHandle {
  readonly where: 'in-process' | 'child';
  readonly url: string;
  requests(): Promise<readonly EngineStamps[]>;
  close(): Promise<void>;
}

async function inProcessEngine(options: EngineServerOptions): Promise<EngineHandle> {
  const server = await startEngineServer(options);
  return { where: 'in-process', url: server.url, requests: async () => server.requests, close: () => server.close() };
}

/**
 * The engine in a child process at nice 10 (set before llama.cpp starts its threads, which inherit it):
 * near its capacity the engine keeps a core busy, and on a loaded 2-core machine the harness, starved,
 * would find itself the bottleneck (its event-loop delay over 10 ms) and spoil the capacity steps. Niced,
 * the engine gets what the harness leaves; its capacity is measured as it is then, by the search and the
 * sweep alike.
 */
async function childEngine(options: EngineServerOptions): Promise<EngineHandle> {
  const child = await startEngineProcess({ ...options, nice: 10 });
  return { where: 'child', url: child.url, requests: () => child.requests(), close: () => child.close() };
}

function target(engine: EngineHandle): string {
  return `target: { base_url: ${JSON.stringify(engine.url)}, tokenizer: ${JSON.stringify(TOKENIZER)} }`;
}

interface StampsPart {
  readonly where: EngineHandle['where'];
  readonly scenarios: Record<string, { ttft: ErrorStats; e2e: ErrorStats; engineQueueP50Ms: number }>;
  readonly all: { ttft: ErrorStats; e2e: ErrorStats };
  readonly unmatched: number;
  readonly failed: number;
  readonly seconds: number;
  readonly join: JoinResult;
}

async function stamps(ctx: BenchContext, setup: Setup, engine: EngineHandle, perScenario: number): Promise<StampsPart> {
  const scenarios = [1, 4]
    .map(
      (streams) => `  - name: c${streams}
    load: { mode: concurrency, concurrency: ${streams} }
    warmup_requests: ${2 * streams}
    requests: ${perScenario}
    prompt: { input_tokens: ${PROMPT_TOKENS} }
    request: ${setup.request}
`,
    )
    .join('');
  const profile = join(setup.dir, `stamps-${engine.where}.yaml`);
  writeFileSync(profile, `name: engine-stamps\n${target(engine)}\nscenarios:\n${scenarios}`);
  const out = join(setup.dir, `stamps-${engine.where}-run`);
  const started = performance.now();
  await cli(setup.dir, ['run', profile, '--out', out, '--quiet']);
  const seconds = (performance.now() - started) / 1000;
  const requests = harnessRequests(parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records);
  const joined = joinStamps(requests, await engine.requests());
  const per: StampsPart['scenarios'] = {};
  for (const name of ['c1', 'c4']) {
    const mine = joined.joined.filter((j) => j.scenario === name);
    per[name] = {
      ttft: errorStats(mine.map((j) => j.ttftErrorMs)),
      e2e: errorStats(mine.map((j) => j.e2eErrorMs)),
      engineQueueP50Ms: errorStats(mine.map((j) => j.engineQueueMs)).median,
    };
  }
  ctx.log(
    `stamps (engine ${engine.where}): ${joined.joined.length} joined, ${joined.unmatched} unmatched, ${joined.failed} failed in ${seconds.toFixed(1)} s`,
  );
  return {
    where: engine.where,
    scenarios: per,
    all: {
      ttft: errorStats(joined.joined.map((j) => j.ttftErrorMs)),
      e2e: errorStats(joined.joined.map((j) => j.e2eErrorMs)),
    },
    unmatched: joined.unmatched,
    failed: joined.failed,
    seconds,
    join: joined,
  };
}

interface Search {
  readonly group: CapacityGroupSummary;
  /** The search that answered. */
  readonly seconds: number;
  /** Searches before it that the harness spoiled (ended INCONCLUSIVE), and the time with them. */
  readonly spoiled: number;
  readonly totalSeconds: number;
}

interface CapacityPart {
  /** The search that answered (one: a second after the sweep doubled the bench's time on the busy machine). */
  readonly searches: readonly Search[];
  readonly sweep: readonly (SweepStep & { readonly harnessBottleneck: boolean })[];
  readonly sweepAnswer: SweepAnswer;
  readonly sweepSeconds: number;
  readonly stepSeconds: number;
  readonly warmupSeconds: number;
}

/** One open-loop scenario (Poisson arrivals) of the engine workload. */
function rateScenario(setup: Setup, name: string, rate: number, warmup: string, duration: string): string {
  return `  - name: ${name}
    load: { mode: rate, rate: ${rate}, arrival: poisson }
    warmup: ${warmup}
    duration: ${duration}
    seed: 11
    prompt: { input_tokens: ${PROMPT_TOKENS} }
    request: ${setup.request}
`;
}

/** Where a search starts (req/s): below the engine's capacity, so that its first steps load the machine lightly. */
const SEARCH_START = 8;
/** Searches the harness ended INCONCLUSIVE (its own bottleneck on the loaded machine) are run again, as many times. */
const SEARCH_RETRIES = 2;

/** `inferbench capacity` on the engine; a search the busy harness spoiled is run again with the next seed. */
async function search(ctx: BenchContext, setup: Setup, engine: EngineHandle, name: string): Promise<Search> {
  const started = performance.now();
  let spoiled = 0;
  for (let attempt = 0; ; attempt++) {
    const seed = 11 + attempt;
    const profile = join(setup.dir, `${name}-${attempt}.yaml`);
    writeFileSync(
      profile,
      `name: engine-capacity\n${target(engine)}\nscenarios:\n${rateScenario(setup, 'search', SEARCH_START, '5s', '20s')}capacity:
  slo: { ttft_ms.p90: ${TTFT_P90_MS}ms, error_rate: ${MAX_ERROR_RATE * 100}% }
  start: ${SEARCH_START}
  resolution: 10%
  seed: ${seed}
`,
    );
    const out = join(setup.dir, `${name}-${attempt}-run`);
    const attemptStarted = performance.now();
    await cli(setup.dir, ['capacity', profile, '--out', out, '--quiet']);
    const seconds = (performance.now() - attemptStarted) / 1000;
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { capacity: CapacitySummary };
    const group = summary.capacity.groups[0];
    if (group === undefined) throw new Error('the capacity search reported no group');
    ctx.log(
      `${name} (seed ${seed}): ${group.capacity} in [${group.interval?.join(', ')}] req/s, ${group.steps.length} steps, ${seconds.toFixed(0)} s (${group.end_reason})`,
    );
    for (const step of group.steps)
      ctx.log(`  step ${step.step} ${step.load.toFixed(2)} req/s ${step.outcome}: ${step.reason.slice(0, 160)}`);
    if (!group.end_reason.startsWith('inconclusive') || attempt >= SEARCH_RETRIES)
      return { group, seconds, spoiled, totalSeconds: (performance.now() - started) / 1000 };
    spoiled++;
  }
}

/**
 * The brute-force sweep: one `inferbench run` per rate, as nextSweepRate picks them (up from 0.6x `center`
 * in steps of `stepShare` x `center` until `failsToStop` steps in a row failed; down first if 0.6x failed).
 */
async function sweep(
  ctx: BenchContext,
  setup: Setup,
  engine: EngineHandle,
  center: number,
  quick: boolean,
  stepMs: number,
): Promise<Omit<CapacityPart, 'searches'>> {
  const stepShare = quick ? 0.2 : 0.1;
  const failsToStop = quick ? 1 : 2;
  const warmupSeconds = quick ? 3 : 5;
  const steps: (SweepStep & { harnessBottleneck: boolean })[] = [];
  const started = performance.now();
  for (let i = 0; ; i++) {
    const rate = nextSweepRate(steps, center, stepShare, failsToStop);
    if (rate === null) break;
    const profile = join(setup.dir, `sweep-${i}.yaml`);
    writeFileSync(
      profile,
      `name: engine-sweep\n${target(engine)}\nscenarios:\n${rateScenario(setup, 'sweep', rate, `${warmupSeconds}s`, `${stepMs / 1000}s`)}`,
    );
    const out = join(setup.dir, `sweep-${i}-run`);
    await cli(setup.dir, ['run', profile, '--out', out, '--quiet']);
    const requests = harnessRequests(parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      harness?: { client_bottleneck?: boolean };
    };
    const step = {
      ...sweepStep(rate, requests, TTFT_P90_MS, ALLOWED_SHARE, MAX_ERROR_RATE),
      harnessBottleneck: summary.harness?.client_bottleneck === true,
    };
    steps.push(step);
    ctx.log(
      `sweep ${rate} req/s: ${step.over}/${step.requests} over (${(100 * step.share).toFixed(1)}%) ${step.pass ? 'PASS' : 'FAIL'}${step.harnessBottleneck ? ' (harness flagged itself a bottleneck)' : ''}`,
    );
  }
  return {
    sweep: steps,
    sweepAnswer: sweepAnswer(steps, ALLOWED_SHARE),
    sweepSeconds: (performance.now() - started) / 1000,
    stepSeconds: stepMs / 1000,
    warmupSeconds,
  };
}

async function capacityPart(
  ctx: BenchContext,
  setup: Setup,
  engine: EngineHandle,
  quick: boolean,
  stepMs: number,
): Promise<CapacityPart> {
  const first = await search(ctx, setup, engine, 'search');
  const { group } = first;
  const center = group.capacity ?? group.last_pass ?? group.first_fail;
  if (center === null) throw new Error(`the capacity search found no load to sweep around: ${group.end_reason}`);
  const swept = await sweep(ctx, setup, engine, center, quick, stepMs);
  return { searches: [first], ...swept };
}

const ms = (value: number): number => Number(value.toFixed(2));

function stampRows(part: StampsPart): BenchRow[] {
  const rows: BenchRow[] = [];
  const row = (name: string, what: string, s: ErrorStats, note: string) =>
    rows.push({
      part: `stamps (engine ${part.where})`,
      what: `${what} ${name}`,
      n: s.n,
      min_ms: ms(s.min),
      median_ms: ms(s.median),
      p99_ms: ms(s.p99),
      max_ms: ms(s.max),
      note,
    });
  for (const [name, s] of Object.entries(part.scenarios)) {
    const streams = `${name.slice(1)} stream(s) on ${SEQUENCES} sequences, engine queue p50 ${ms(s.engineQueueP50Ms)} ms`;
    row(name, 'TTFT error', s.ttft, streams);
    row(name, 'E2E error', s.e2e, streams);
  }
  row('all', 'TTFT error', part.all.ttft, `${part.unmatched} unmatched, ${part.failed} failed`);
  row('all', 'E2E error', part.all.e2e, `run took ${part.seconds.toFixed(1)} s`);
  return rows;
}

const req = (value: number | null): string => (value === null ? '-' : value.toFixed(2));

/** Capacity rows in the stamps rows' columns: `n` is steps, the answer in `note`. */
function capacityRows(part: CapacityPart): BenchRow[] {
  const a = part.sweepAnswer;
  const rows: BenchRow[] = part.searches.map(({ group: s, seconds, spoiled, totalSeconds }) => ({
    part: 'capacity',
    what: 'search (inferbench capacity)',
    n: s.steps.length,
    note: `${req(s.capacity)} req/s in ${s.interval === null ? '-' : `${req(s.interval[0])} - ${req(s.interval[1])}`}, last pass ${req(s.last_pass)}, first fail ${req(s.first_fail)}; ${Math.round(seconds)} s (${spoiled} spoiled searches before it, ${Math.round(totalSeconds)} s in all); ${s.end_reason}`,
  }));
  const inside = part.searches
    .filter(({ group: s }) => s.interval !== null)
    .map(({ group: s }) =>
      a.capacity !== null && s.interval !== null && s.interval[0] <= a.capacity && a.capacity <= s.interval[1]
        ? 'inside'
        : 'outside',
    );
  rows.push({
    part: 'capacity',
    what: `brute-force sweep (${part.warmupSeconds} s warmup + ${part.stepSeconds} s per rate)`,
    n: part.sweep.length,
    note: `${req(a.capacity)} req/s (share over the limit crossing 10%), last pass ${req(a.lastPass)}, first fail ${req(a.firstFail)}; ${Math.round(part.sweepSeconds)} s; ${a.capacity === null ? 'no answer to compare' : `${inside.join('/') || 'no'} search interval`}`,
  });
  for (const step of part.sweep)
    rows.push({
      part: 'sweep',
      what: `${step.rate} req/s: ${step.pass ? 'PASS' : 'FAIL'}`,
      n: step.requests,
      note: `${step.over} over the limit (${(100 * step.share).toFixed(1)}%), ${step.failed} failed${step.harnessBottleneck ? '; the harness flagged itself a bottleneck' : ''}`,
    });
  return rows;
}

export const engineBenchmark: Benchmark = {
  description:
    'inferbench against llama.cpp serving a generated tiny llama: TTFT/E2E against the engine stamps, the capacity search against a brute-force sweep',
  async run(ctx: BenchContext): Promise<BenchOutcome> {
    const skip = new Set(ctx.skip ?? []);
    const quick = ctx.quick === true;
    const stepMs = ctx.duration === undefined ? (quick ? 8000 : 15000) : (parseDurationMs(ctx.duration) as number);
    const dir = mkdtempSync(join(tmpdir(), 'inferbench-engine-bench-'));
    const loadBefore = loadavg();
    const handles: EngineHandle[] = [];
    try {
      const model = writeTinyLlama(dir, { ...MODEL, tokenizer: TOKENIZER });
      const options: EngineServerOptions = { modelPath: model.path, sequences: SEQUENCES, contextSize: 2048 };
      const bias = Object.fromEntries((await wordTokens()).map((id) => [String(id), 100]));
      const request = `{ stream: true, temperature: 0, max_completion_tokens: ${OUTPUT_TOKENS}, logit_bias: ${JSON.stringify(bias)} }`;
      const setup: Setup = { dir, request };
      const perScenario = quick ? 40 : 150;
      const stampsParts: StampsPart[] = [];
      if (!skip.has('stamps')) {
        // The engine in this process first (one clock, one event loop), then alone in its own process.
        const local = await inProcessEngine(options);
        handles.push(local);
        stampsParts.push(await stamps(ctx, setup, local, perScenario));
        await local.close();
        handles.pop();
      }
      let capacity: CapacityPart | null = null;
      if (!skip.has('stamps') || !skip.has('capacity')) {
        const child = await childEngine(options);
        handles.push(child);
        if (!skip.has('stamps')) stampsParts.push(await stamps(ctx, setup, child, perScenario));
        if (!skip.has('capacity')) capacity = await capacityPart(ctx, setup, child, quick, stepMs);
      }
      const rows = [...stampsParts.flatMap(stampRows), ...(capacity ? capacityRows(capacity) : [])];
      const engine = {
        model: { ...MODEL, parameters: model.parameters, bytes: model.bytes },
        sequences: SEQUENCES,
        threads: 1,
        prompt_tokens: PROMPT_TOKENS,
        output_tokens: OUTPUT_TOKENS,
      };
      return {
        rows,
        json: {
          engine,
          load_average_before: loadBefore,
          load_average_after: loadavg(),
          stamps: stampsParts.map((part) => ({
            engine: part.where,
            scenarios: part.scenarios,
            all: part.all,
            unmatched: part.unmatched,
            failed: part.failed,
            seconds: part.seconds,
            requests: part.join.joined,
          })),
          capacity: capacity && {
            slo: { ttft_ms_p90: TTFT_P90_MS, error_rate: MAX_ERROR_RATE },
            searches: capacity.searches.map(({ group, seconds, spoiled, totalSeconds }) => ({
              seconds,
              spoiled,
              total_seconds: totalSeconds,
              group,
            })),
            sweep: capacity.sweep,
            sweep_answer: capacity.sweepAnswer,
            sweep_seconds: capacity.sweepSeconds,
            sweep_step_seconds: capacity.stepSeconds,
            sweep_warmup_seconds: capacity.warmupSeconds,
          },
        },
        notes: [
          'TTFT error: harness ttft_ms (socket write -> first content chunk read) - engine (arrival after the body was read -> first token yielded)',
          'E2E error: harness e2e_ms (socket write -> [DONE] read) - engine (arrival -> generation ended after the last token)',
          `capacity: SLO ttft_ms.p90 < ${TTFT_P90_MS} ms, error_rate < ${MAX_ERROR_RATE * 100}%; a sweep step passes when at most ${ALLOWED_SHARE * 100}% of its measured requests are over the limit or failed`,
          `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')} after`,
        ],
      };
    } finally {
      for (const handle of handles) await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
