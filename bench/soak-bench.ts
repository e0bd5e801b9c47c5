/**
 * The soak benchmark (`npm run bench soak`, 10 minutes by default, `--duration 1h`): the whole harness
 * as a user runs it (`inferbench run` in this process, through runCli: profile, runner, client,
 * collector, requests.csv written as the run goes, then the reports) against the embedded emulator, which
 * the CLI starts in a child process so its memory is not the harness's. A steady open loop of
 * RATE requests a second, sampling this process's RSS, heap used, open fds and event-loop delay every few
 * seconds (soak-sampler.ts). Verdict: no series grows more than 10% after the warmup (soak-verdict.ts).
 *
 * Why in-process rather than the CLI in a child with `--json`: a child's heap and event-loop delay cannot
 * be read from outside it; here all four series are the harness's, and the only extra work in this
 * process is a sampler that keeps about 100 bytes a sample.
 *
 * The rate: 50 requests/s of up to 128 output tokens is ~5,500 streamed tokens a second and ~23 streams in
 * flight (50/s x 0.45 s mean E2E, measured); on a 2-core machine that leaves the harness at about a fifth of a core and the emulator at
 * well under one (measured), a realistic steady load that never saturates the machine, so what the
 * curve shows is memory and handles over time, not an overloaded event loop.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from '../src/cli/run-cli.js';
import type { CliContext } from '../src/cli/context.js';
import { formatDurationMs, parseDurationMs } from '../src/util/duration.js';
import { formatTable, type BenchContext, type BenchOutcome, type Benchmark } from './benchmark.js';
import { startSoakSampler, type SoakSample } from './soak-sampler.js';
import { curveRows, FLAT_TOLERANCE, soakVerdict, verdictRows } from './soak-verdict.js';

const RATE = 50;
const OUTPUT_TOKENS = 128;
const INPUT_TOKENS = 256;
const DEFAULT_DURATION_MS = 10 * 60_000;
const QUICK_DURATION_MS = 20_000;

interface SoakPlan {
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly sampleIntervalMs: number;
  /** Curve buckets: a minute on runs of five minutes or more. */
  readonly bucketMs: number;
}

/** Warmup: a minute, or a quarter of a short run; samples every 5 s, or 20 a run on short runs. */
export function soakPlan(durationMs: number): SoakPlan {
  return {
    durationMs,
    warmupMs: Math.min(60_000, durationMs / 4),
    sampleIntervalMs: Math.min(5000, Math.max(250, durationMs / 20)),
    bucketMs: durationMs >= 5 * 60_000 ? 60_000 : durationMs / 10,
  };
}

function durationOf(ctx: BenchContext): number {
  if (ctx.duration === undefined) return ctx.quick ? QUICK_DURATION_MS : DEFAULT_DURATION_MS;
  const ms = parseDurationMs(ctx.duration);
  if (ms === undefined || ms < 3000) throw new Error(`--duration ${ctx.duration}: give a duration of 3s or more`);
  return ms;
}

function profileText(durationMs: number): string {
  return `name: soak
scenarios:
  - name: soak
    models: [small-fast-8b]
    load: { mode: rate, rate: ${RATE}, arrival: constant, max_concurrency: 1024 }
    duration: ${Math.round(durationMs)}ms
    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${OUTPUT_TOKENS} }
    seed: 14
`;
}

/** A stream that keeps only the last few kB (a 10-minute run must not grow the memory it measures). */
class TailStream extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text = (this.text + chunk.toString()).slice(-4000);
    done();
  }
}

/** Runs `inferbench run` in this process while sampling it; returns the samples and the run's summary. */
async function soakRun(plan: SoakPlan, dir: string) {
  const profilePath = join(dir, 'soak.yaml');
  writeFileSync(profilePath, profileText(plan.durationMs));
  const out = join(dir, 'run');
  const stdout = new TailStream();
  const stderr = new TailStream();
  const cli: CliContext = {
    stdout,
    stderr,
    env: { PATH: process.env['PATH'] },
    cwd: dir,
    interrupt: new AbortController().signal,
    exitCode: 0,
  };
  const sampler = startSoakSampler(plan.sampleIntervalMs);
  let samples: SoakSample[];
  let code: number;
  try {
    code = await runCli(['run', profilePath, '--out', out, '--quiet'], cli);
  } finally {
    samples = sampler.stop();
  }
  if (code !== 0) throw new Error(`inferbench run exited ${code}: ${stderr.text.trim()}`);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummaryFacts;
  const window = {
    startS: (Date.parse(summary.started_at) - sampler.startedAtWallMs) / 1000,
    endS: (Date.parse(summary.ended_at) - sampler.startedAtWallMs) / 1000,
  };
  return { samples, summary, window };
}

/** What the soak reads of the run's summary.json. */
interface RunSummaryFacts {
  readonly started_at: string;
  readonly ended_at: string;
  readonly groups: readonly {
    readonly requests: { readonly ok: number; readonly failed: number; readonly dropped: number };
    readonly throughput: { readonly requests_per_s: number; readonly output_tokens_per_s: number };
  }[];
  readonly harness: { readonly cpu_utilization: number; readonly event_loop_delay_ms: { readonly p99: number } };
}

async function runSoak(ctx: BenchContext): Promise<BenchOutcome> {
  const plan = soakPlan(durationOf(ctx));
  ctx.log(
    `${formatDurationMs(plan.durationMs)} at ${RATE} requests/s (warmup ${formatDurationMs(plan.warmupMs)}, a sample every ${formatDurationMs(plan.sampleIntervalMs)})`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-soak-'));
  let run: Awaited<ReturnType<typeof soakRun>>;
  try {
    run = await soakRun(plan, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const verdict = soakVerdict(run.samples, run.window, plan.warmupMs / 1000);
  const curve = curveRows(run.samples, plan.bucketMs / 1000);
  const group = run.summary.groups[0];
  const notes = [
    '',
    `curve (per ${formatDurationMs(plan.bucketMs)}: medians of RSS and heap, lowest heap, highest fds and event-loop delay p99):`,
    formatTable(curve),
    '',
    `run: ${group?.requests.ok} ok, ${group?.requests.failed} failed, ${group?.requests.dropped} dropped; ${group?.throughput.requests_per_s} requests/s, ${group?.throughput.output_tokens_per_s} output tokens/s; harness CPU ${run.summary.harness.cpu_utilization}`,
    verdict.flat
      ? `PASS: no series grew more than ${FLAT_TOLERANCE * 100}% after ${formatDurationMs(plan.warmupMs)} of warmup (last third vs first third, medians; fds' highest at most 10% above the first third's)`
      : `FAIL: a series grew beyond ${FLAT_TOLERANCE * 100}% (rows marked NO)`,
  ];
  return {
    rows: verdictRows(verdict),
    notes,
    json: {
      settings: { rate_per_s: RATE, input_tokens: INPUT_TOKENS, output_tokens: OUTPUT_TOKENS, ...plan },
      verdict,
      run: {
        groups: run.summary.groups.map((g) => ({ requests: g.requests, throughput: g.throughput })),
        harness: run.summary.harness,
      },
      curve,
      samples: run.samples,
    },
  };
}

export const soakBenchmark: Benchmark = {
  description: `soak: inferbench run against the emulator at a steady ${RATE} requests/s (10 minutes, or --duration), the harness's RSS, heap, fds and event-loop delay must not grow by more than 10%`,
  run: runSoak,
};
