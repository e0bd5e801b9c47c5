/**
 * `run --workers N`: one run's load sent by N worker threads of this process, for when one event loop is
 * not enough. Each worker runs a share of every scenario exactly as a shard would (schedule/shard.ts:
 * rate / N, concurrency, max_concurrency and request counts split evenly, its own arrival seed, its own
 * slice of the prompts), so N workers send what one process would. The coordinator (this thread) starts
 * them, waits until every one has resolved its models and built its workloads, starts them together, and
 * owns the one collector of the run: the workers forward every start, drop and finished record
 * (worker-outbox.ts), so histograms, counters, the time series and requests.csv are exactly those of a
 * single run. The harness health is the worst of the workers', with each worker's own in `workers`.
 */
import { InferbenchError } from '../errors.js';
import { createEarlyStop, type EarlyStop } from '../aggregate/early-stop.js';
import { worstHealth } from '../aggregate/worst-health.js';
import type { RunCollector } from '../aggregate/types.js';
import type { Clock } from '../util/clock.js';
import type { HarnessHealth, RunStopped, WorkerHealth } from '../metrics/run-summary.js';
import type { ResolvedGroup, ResolvedProfile } from '../profile/resolved-profile.js';
import { shardProfile, subShard } from '../schedule/shard.js';
import { plannedDurationMs, plannedRequestCount } from './load-plan.js';
import { collectorOptions, startTicker, type RunProfileOptions, type RunResult } from './run-profile.js';
import { defaultRunnerDeps } from './runner-deps.js';
import { waitUntilWall } from './start-at.js';
import { mergeRanOutWarnings } from './workload-warnings.js';
import { startServerScraping, type ServerScraping } from './server-scraping.js';
import { type WorkerEnd, WorkerThreadHandle } from './worker-thread-handle.js';
import type { WorkerEvent } from './worker-protocol.js';

/** The run's early-stop checks and, once one fired, why it stopped. */
interface EarlyStopping {
  readonly check: EarlyStop | null;
  stopped: RunStopped | null;
  readonly runStartUs: number;
}

function secondsSince(clock: Clock, startUs: number): number {
  return Math.round((clock.nowUs() - startUs) / 1000) / 1000;
}

export interface WorkerPoolOptions {
  /** Worker threads, >= 1. */
  readonly count: number;
  /** The threads' entry module (cli/run-worker-thread.js: it aligns the thread's clock, then runs worker-share.ts). */
  readonly script: URL;
  /** This thread's (monotonic clock - performance.now()) in ms, for the workers' clock alignment. */
  readonly clockAnchorMs: number;
}

/** Runs the profile in `pool.count` worker threads; the result is one run's. */
export async function runProfileInWorkers(options: RunProfileOptions, pool: WorkerPoolOptions): Promise<RunResult> {
  const { target, control, env } = options;
  const clock = env.clock;
  const outer = control.shard ?? null;
  let apply: (worker: number, events: readonly WorkerEvent[]) => void = () => undefined;
  const threads = Array.from(
    { length: pool.count },
    (_, i) =>
      new WorkerThreadHandle(
        pool.script,
        {
          workerIndex: i + 1,
          workerCount: pool.count,
          share: subShard(outer, i + 1, pool.count),
          profile: options.profile,
          baseUrl: target.baseUrl,
          apiKey: target.apiKey,
          version: env.version,
          proxy: target.proxy ?? null,
          tickIntervalMs: control.tickIntervalMs ?? 1000,
          harnessRampMs: control.harnessRampMs ?? 0,
          clockAnchorMs: pool.clockAnchorMs,
        },
        {
          events: (events) => apply(i + 1, events),
          idle: (scenario, reason) => env.events?.onWorkerIdle?.(scenario, i + 1, reason),
        },
      ),
  );
  const onInterrupt = (): void => {
    for (const thread of threads) thread.send({ type: 'interrupt' });
  };
  control.interrupt.addEventListener('abort', onInterrupt, { once: true });
  try {
    const ready = await allReady(threads);
    const profile = ready.profile;
    const { startedAtWallMs, runStartUs } = await startClock(options, clock);
    const deps = env.deps ?? defaultRunnerDeps;
    const collector = deps.createCollector(collectorOptions(profile, runStartUs));
    const sent = outer === null ? profile : shardProfile(profile, outer).profile;
    // abort_on_fail, max_error_rate and --max-cost are judged here, on the one collector, and stop every worker.
    const stop: EarlyStopping = {
      check: createEarlyStop(sent, runStartUs, control.budget ?? null),
      stopped: null,
      runStartUs,
    };
    // Only this thread scrapes target.server_metrics (the workers are given no scrape environment).
    const scraping = startServerScraping(profile, options, outer, clock, runStartUs);
    apply = eventApplier(collector, profile, pool.count, options, stop.check, scraping);
    for (const thread of threads) thread.send({ type: 'go' });
    const scenarios = scenarioStarts(options, sent);
    scenarios.starting(sent.scenarios[0]?.name);
    const ticker = startMergedTicker(options, { collector, scraping }, threads, sent, stop, scenarios.starting);
    const ends = await Promise.all(threads.map((thread) => thread.finished))
      .finally(() => ticker.stop())
      .catch(async (error: unknown) => {
        await scraping.finish({ groups: [], timeSeries: [] });
        throw error;
      });
    const collected = collector.finish(clock.nowUs());
    const result = await scraping.finish(collected);
    const harness = workersHealth(threads, ends);
    return {
      profile,
      workloadHash: ready.workloadHash,
      startedAtWallMs,
      endedAtWallMs: clock.wallMs(),
      // Stopped because every threshold was decided: complete when every worker stopped cleanly (decided-stop.ts).
      complete:
        !control.interrupt.aborted &&
        (stop.stopped === null
          ? ends.every((end) => end.kind === 'done' && end.complete)
          : stop.stopped.reason === 'decided' && ends.every((end) => end.kind === 'done')),
      interrupted: control.interrupt.aborted,
      groups: result.groups,
      timeSeries: result.timeSeries,
      harness,
      tokenizer: ready.tokenizer,
      shard: outer,
      startAtWallMs: control.startAtWallMs ?? null,
      workers: pool.count,
      ...(result.serverMetrics === undefined ? {} : { serverMetrics: result.serverMetrics }),
      stopped:
        stop.stopped ??
        (control.interrupt.aborted ? { reason: 'interrupted', at_s: secondsSince(clock, runStartUs) } : null),
    };
  } finally {
    control.interrupt.removeEventListener('abort', onInterrupt);
    await Promise.all(threads.map((thread) => thread.stop()));
  }
}

/**
 * Waits for `--start-at` when given, then starts the run's clock and tells the events' sink (whose errors
 * never stop the run: run-events.ts).
 */
async function startClock(
  { control, env }: RunProfileOptions,
  clock: Clock,
): Promise<{ startedAtWallMs: number; runStartUs: number }> {
  const startAtWallMs = control.startAtWallMs ?? null;
  if (startAtWallMs !== null) {
    const waitMs = startAtWallMs - clock.wallMs();
    env.events?.onStartAt?.({ untilWallMs: startAtWallMs, waitMs });
    await waitUntilWall(clock, startAtWallMs, control.interrupt);
  }
  const startedAtWallMs = clock.wallMs();
  const runStartUs = clock.nowUs();
  try {
    env.events?.onRunStart?.(runStartUs);
  } catch {
    // Ignored, as every sink's error.
  }
  return { startedAtWallMs, runStartUs };
}

/** Every worker's `ready`; the first failure stops them all and is the run's error (exit code included). */
async function allReady(threads: readonly WorkerThreadHandle[]) {
  const ready = await Promise.all(threads.map((thread) => thread.ready));
  const first = ready[0];
  if (first === undefined) throw new InferbenchError('BAD_USAGE', '--workers must be at least 1');
  return first;
}

/** Applies a worker's batch to the run's collector and sinks; its record ids are made unique across workers. */
function eventApplier(
  collector: RunCollector,
  profile: ResolvedProfile,
  workers: number,
  options: RunProfileOptions,
  earlyStop: EarlyStop | null,
  scraping: ServerScraping,
): (worker: number, events: readonly WorkerEvent[]) => void {
  const groups: ResolvedGroup[] = [];
  for (const group of profile.groups) groups[group.index] = group;
  const onRecord = options.env.events?.onRecord;
  return (worker, events) => {
    for (const event of events) {
      if (event[0] !== 'record') {
        if (event[0] === 'started') {
          collector.started(event[1], event[2]);
          // Measured starts only reach the collector: a group's measured part has begun.
          earlyStop?.measuring(event[1], event[2]);
        } else collector.dropped(event[1], event[2]);
        continue;
      }
      const [, record, values] = event;
      // Worker w's n-th request is the run's n x workers + (w - 1): unique, and close to launch order.
      record.id = record.id * workers + worker - 1;
      if (!record.warmup) collector.completed(record, values);
      scraping.observe(record, values);
      const group = groups[record.groupIndex];
      if (onRecord && group) {
        try {
          onRecord(record, group, values);
        } catch {
          // A sink never stops the run (run-events.ts).
        }
      }
    }
  };
}

/**
 * `onScenarioStart` of a run in workers, once per scenario: the first at `go` (the workers start
 * together, and a capacity step's monitor starts its blocks then), the next ones when a worker's status
 * first names them (within a status period, a second).
 */
function scenarioStarts(options: RunProfileOptions, sent: ResolvedProfile) {
  const started = new Set<string>();
  return {
    starting: (name: string | undefined): void => {
      const scenario = sent.scenarios.find((s) => s.name === name);
      if (scenario === undefined || started.has(scenario.name)) return;
      started.add(scenario.name);
      const groups = sent.groups.filter((group) => group.scenario === scenario.name);
      try {
        options.env.events?.onScenarioStart?.(scenario, groups);
      } catch {
        // A sink never stops the run (run-events.ts).
      }
    },
  };
}

/** The progress ticks of the merged run: the coordinator's collector, the scenario the workers are in. */
function startMergedTicker(
  options: RunProfileOptions,
  { collector, scraping }: { readonly collector: RunCollector; readonly scraping: ServerScraping },
  threads: readonly WorkerThreadHandle[],
  sent: ResolvedProfile,
  stop: EarlyStopping,
  scenarioStarting: (name: string | undefined) => void,
): { stop(): void } {
  const plannedMs = plannedDurationMs(sent.scenarios);
  const plannedRequests = plannedRequestCount(sent);
  const { clock, events } = options.env;
  return startTicker(clock, options.control.tickIntervalMs ?? 1000, () => {
    if (stop.stopped === null && !options.control.interrupt.aborted) {
      const stopped = stop.check?.check((i) => collector.live?.(i), clock.nowUs()) ?? null;
      if (stopped !== null) {
        stop.stopped = stopped;
        for (const thread of threads) thread.send({ type: 'interrupt' });
      }
    }
    const statuses = threads.flatMap((thread) => (thread.status === null ? [] : [thread.status]));
    for (const status of statuses) scenarioStarting(status.scenario);
    const sink = events?.onTick;
    if (!sink) return;
    try {
      const nowUs = clock.nowUs();
      sink({
        snapshot: collector.progress(nowUs),
        scenario: statuses[0]?.scenario ?? sent.scenarios[0]?.name ?? '',
        warmup: statuses.some((status) => status.warmup),
        plannedMs,
        plannedRequests,
        server: scraping.latest(nowUs),
      });
    } catch {
      // A progress sink that throws must not end the measurement.
    }
  });
}

/** The worst of the workers' health, each worker's own, and a warning for every worker that died. */
function workersHealth(threads: readonly WorkerThreadHandle[], ends: readonly WorkerEnd[]): HarnessHealth {
  const count = threads.length;
  const workers: WorkerHealth[] = threads.map((thread, i) => {
    const end = ends[i] as WorkerEnd;
    const health: HarnessHealth =
      end.kind === 'done'
        ? end.harness
        : {
            event_loop_delay_ms: { p50: 0, p99: 0, max: 0 },
            cpu_utilization: 0,
            schedule_lag_ms: { p50: 0, p99: 0, max: 0 },
            warnings: [`ended before its share was done: ${end.reason}`],
            client_bottleneck: false,
          };
    return {
      worker: thread.index,
      share: { index: thread.share.index, count: thread.share.count },
      complete: end.kind === 'done' && end.complete,
      health,
    };
  });
  // A dataset that ran out is said once for the run, not once per worker (workload-warnings.ts).
  const ranOut = mergeRanOutWarnings(workers.map((w) => w.health));
  const labelled = workers.map((w, i) => ({ label: `worker ${w.worker}/${count}`, health: ranOut.healths[i]! }));
  const worst = worstHealth(labelled);
  return { ...worst, warnings: [...ranOut.warnings, ...worst.warnings], workers };
}
