/**
 * The run loop: scenarios one after another; inside a scenario every group (model x tier) at the same
 * time, each with the scenario's whole load, its own schedule and its own workload, run as its phases
 * (run-phase.ts: warmup, measured part, graceful stop). An interrupt stops scheduling everywhere, lets the
 * graceful stop run, and returns what was measured with complete=false. Writes nothing itself: records
 * and ticks go to the RunEvents sinks, numbers to the collector.
 *
 * One clock: the injected `Clock` drives the schedules, the ticks and the waits, stamps the run's start and
 * every launch, and is handed to the client, which stamps its records with it, so that differences
 * between any two timestamps are real durations (virtual ones on a manual clock, in tests).
 */
import type { Clock } from '../util/clock.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import type { RequestRecord } from '../client/request-record.js';
import type { ClientOptions } from '../client/types.js';
import type { ProxySettings } from '../client/proxy.js';
import { groupsWithoutDialects } from '../aggregate/dialects/dialect-registry.js';
import { createEarlyStop } from '../aggregate/early-stop.js';
import type { SpendBudget } from '../aggregate/cost/cost-meter.js';
import type { CollectorOptions } from '../aggregate/types.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { ResolvedGroup, ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';
import type { GroupSummary, HarnessHealth, RunStopped, TimeSeriesPoint } from '../metrics/run-summary.js';
import { shardProfile } from '../schedule/shard.js';
import type { ShardSpec } from '../schedule/shard.js';
import { withWorkloadWarnings } from './workload-warnings.js';
import type { CpuProbe, HarnessMonitor } from './harness-monitor.js';
import { requestHeaders } from './request-headers.js';
import type { RunEvents } from './run-events.js';
import { RecordFinisher } from './record-finisher.js';
import { AnswerCheckStage } from './answer-check-stage.js';
import { maxConcurrency, plannedDurationMs, plannedRequestCount } from './load-plan.js';
import { scheduleUnits } from './schedule-unit.js';
import { resolveTargetModels } from './model-preflight.js';
import { defaultRunnerDeps } from './runner-deps.js';
import { waitUntilWall } from './start-at.js';
import { sweepRate } from './sweep-rates.js';
import { type GroupPhases, groupPhases, type PhaseContext } from './run-phase.js';
import type { RunnerDeps, Workload } from './runner-deps.js';
import { startServerScraping, type ServerMetricsOutcome, type ServerScraping } from './server-scraping.js';

/** The target connection: where the requests go, as cli/ resolved it. */
export interface RunTarget {
  /** Base URL of the target, without `/v1`. */
  readonly baseUrl: string;
  /** Bearer key (never logged); null sends no Authorization header. */
  readonly apiKey: string | null;
  /** The proxy environment (HTTPS_PROXY, ...) as cli/ read it; absent or null: direct connections. */
  readonly proxy?: ProxySettings | null;
}

/** Run control: what stops the run, when it starts, which share of the load it sends, how often it ticks. */
export interface RunControl {
  /** Aborted on Ctrl-C: stop scheduling, finish gracefully, return complete=false. */
  readonly interrupt: AbortSignal;
  /**
   * `--max-cost`: checked with the early stops on every tick; the run stops like Ctrl-C (stopped.reason
   * max_cost) once the spend reaches it. Absent or null: no budget.
   */
  readonly budget?: SpendBudget | null;
  /** `--shard i/N`: send only this shard's share of every scenario (schedule/shard.ts); absent: the whole load. */
  readonly shard?: ShardSpec | null;
  /**
   * `--start-at`: wall-clock epoch ms to wait for after the model pre-flight and the workload set-up, before
   * the first request (a time already past starts at once). Absent: start at once.
   */
  readonly startAtWallMs?: number | null;
  /**
   * `run --workers`: called once the models are resolved and the workloads built, before any wait or
   * request, with the profile as it will run; the run starts when it resolves (the coordinator starts every
   * worker together). Absent: start at once.
   */
  readonly startGate?: (ready: { readonly profile: ResolvedProfile; readonly tokenizer: string }) => Promise<void>;
  /** Tick interval (default 1000 ms on the clock). */
  readonly tickIntervalMs?: number;
  /**
   * The environment target.server_metrics reads its api_key_env from (the CLI's); given, the run scrapes the
   * profile's endpoints (server-scraping.ts). Absent: it scrapes nothing (worker threads: the coordinator does).
   */
  readonly serverMetricsEnv?: Readonly<Record<string, string | undefined>> | null;
  /**
   * Requests launched within this long of a scenario's start are left out of the harness's schedule lag
   * (summary.json `harness`): a capacity step's first block, read by no test, where fresh worker threads and
   * connections send late by design (measured: 6-59 ms, against about 1 ms after). Absent: 0, every request.
   */
  readonly harnessRampMs?: number;
}

/** The environment the run is given (STYLE 8): its clock, probes, identity, layers and sinks. */
export interface RunEnvironment {
  /** Every time of the run, and the client's timestamps (a manual clock: virtual time). */
  readonly clock: Clock;
  /** process.cpuUsage from cli/ (null: CPU use reported as 0). */
  readonly cpuProbe: CpuProbe | null;
  /** inferbench version, for the integration header. */
  readonly version: string;
  /** The layers the runner composes (runner-deps.ts); absent: the real ones. */
  readonly deps?: RunnerDeps;
  readonly events?: RunEvents;
  /**
   * Sizes and counts the prompts, and counts received text when a server sends no usage and for the usage
   * check. Default: the profile's target.tokenizer (a tokenizer.json, loaded here), else o200k_base.
   */
  readonly tokenizer?: EncodingTokenizer;
}

export interface RunProfileOptions {
  readonly profile: ResolvedProfile;
  readonly target: RunTarget;
  readonly control: RunControl;
  readonly env: RunEnvironment;
}

export interface RunResult {
  /** The profile as run: models resolved from the target where the profile named none. */
  readonly profile: ResolvedProfile;
  readonly workloadHash: string;
  /** Wall-clock start and end (epoch ms), for labels only. */
  readonly startedAtWallMs: number;
  readonly endedAtWallMs: number;
  /** False when interrupted or stopped early. */
  readonly complete: boolean;
  readonly interrupted: boolean;
  /** Why it ended before its end (abort_on_fail, max_error_rate, Ctrl-C), or null; absent from runs in workers. */
  readonly stopped?: RunStopped | null;
  readonly groups: GroupSummary[];
  readonly timeSeries: TimeSeriesPoint[];
  readonly harness: HarnessHealth;
  /** Name of the tokenizer that counted (o200k_base, or the tokenizer.json's path). */
  readonly tokenizer: string;
  /** The shard this run was (its share of `profile`), or null for a whole run. */
  readonly shard: ShardSpec | null;
  /** The `--start-at` time it waited for (epoch ms), or null. */
  readonly startAtWallMs: number | null;
  /** `run --workers N`: the worker threads that sent it (run-in-workers.ts); absent for a run in this thread. */
  readonly workers?: number;
  /** A sweep's rate phases: group key -> the rate it ran at (sweep-rates.ts); absent without a sweep. */
  readonly sweepRates?: Readonly<Record<string, number>>;
  /** target.server_metrics, when this run scraped: the endpoints and their warnings (server-scraping.ts). */
  readonly serverMetrics?: ServerMetricsOutcome;
}

/** The run's collector: its groups, its SLO (goodput), its start, and the groups whose API has no dialects. */
export function collectorOptions(profile: ResolvedProfile, runStartUs: number): CollectorOptions {
  return { groups: profile.groups, slo: profile.slo, runStartUs, withoutDialects: groupsWithoutDialects(profile) };
}

/** A profile's tokenizer.json: its library is loaded only for one (every worker thread imports this module). */
async function hfTokenizer(path: string): Promise<EncodingTokenizer> {
  const { loadHfTokenizer } = await import('../util/hf-tokenizer.js');
  return loadHfTokenizer(path);
}

/** Runs a whole profile against one target. Throws only for a run that cannot start (unreachable target). */
export async function runProfile(options: RunProfileOptions): Promise<RunResult> {
  const { env, control } = options;
  const deps = env.deps ?? defaultRunnerDeps;
  const clock = env.clock;
  // A bad tokenizer.json is a profile error (exit 2), found before anything is sent.
  const tokenizerPath = options.profile.target.tokenizer;
  const tokenizer = env.tokenizer ?? (tokenizerPath ? await hfTokenizer(tokenizerPath) : o200kTokenizer());
  const headers = requestHeaders(env.version, options.profile.target.headers);
  const profile = await resolveModels(options, deps, headers);
  // The profile as run stays whole in the result (shards of one run record the same profile, for merge);
  // what this process sends is its share.
  const shard = control.shard ?? null;
  const share = shard === null ? null : shardProfile(profile, shard);
  const sent = share === null ? profile : share.profile;
  // The tokenizer loads its vocabulary on first use (seconds): pay that before the clock starts, not
  // inside the first request's latency or as a stall of the event loop mid-run.
  tokenizer.count('inferbench');
  // Every group's workload is built before anything is sent: a dataset or a tokenizer that cannot make
  // exact prompts is a profile error at the start, not the end of a run that already measured scenarios.
  const answers = new AnswerCheckStage();
  const workloads = buildWorkloads(sent, deps, tokenizer, answers);
  if (control.startGate) await control.startGate({ profile, tokenizer: tokenizer.name });
  const startAtWallMs = control.startAtWallMs ?? null;
  if (startAtWallMs !== null) await waitForStart(options, startAtWallMs);
  const startedAtWallMs = clock.wallMs();
  const runStartUs = clock.nowUs();
  safeCall(() => options.env.events?.onRunStart?.(runStartUs));
  const collector = deps.createCollector(collectorOptions(profile, runStartUs));
  const monitor = deps.startHarnessMonitor(env.cpuProbe);
  // Before the first scenario's warmup, on the run's clock; off the request path (its own connections).
  const scraping = startServerScraping(profile, options, shard, clock, runStartUs);
  const deliver = (record: RequestRecord, values: RecordedValues): void => finishRecord(state, record, values);
  const state: RunState = {
    scraping,
    options,
    clock,
    deps,
    collector,
    monitor,
    headers,
    nextRecordId: 0,
    interrupted: control.interrupt.aborted,
    activeSchedules: new Set(),
    currentScenario: profile.scenarios[0]?.name ?? '',
    lagFromUs: Number.NEGATIVE_INFINITY,
    warmingGroups: 0,
    finished: new RecordFinisher({ tokenizer, deadlines: profile.deadlines, finishing: deps.recordFinishing, deliver }),
    groupByIndex: groupsByIndex(profile.groups),
    workloads,
    answers,
    shard,
    earlyStop: createEarlyStop(sent, runStartUs, control.budget ?? null),
    stopped: stoppedAtStart(control.interrupt.aborted),
    sweepRates: {},
    unscheduled: new WeakSet(),
  };
  const onInterrupt = (): void => {
    state.stopped ??= { reason: 'interrupted', at_s: Math.round((clock.nowUs() - runStartUs) / 1000) / 1000 };
    state.interrupted = true;
    // Counting what is still queued must not outlast the graceful stop (record-finisher.ts).
    state.finished.hurry();
    for (const schedule of state.activeSchedules) schedule.stop();
  };
  if (state.interrupted) state.finished.hurry();
  control.interrupt.addEventListener('abort', onInterrupt, { once: true });
  const plan = { plannedMs: plannedDurationMs(sent.scenarios), plannedRequests: plannedRequestCount(sent) };
  const ticker = startTicker(clock, control.tickIntervalMs ?? 1000, () => tick(state, plan, onInterrupt));

  try {
    await runScenarios(state, sent, share?.idle ?? null).catch(async (error: unknown) => {
      // No scrape timer outlives a run that could not be done.
      await scraping.finish({ groups: [], timeSeries: [] });
      throw error;
    });
  } finally {
    ticker.stop();
    // In slices, not at once: a large answer still being counted must not hold the loop (nor a signal).
    await state.finished.drained();
    control.interrupt.removeEventListener('abort', onInterrupt);
  }

  const result = await scraping.finish(collector.finish(clock.nowUs()));
  // A dataset whose without_replacement supply ran out says so (workload-warnings.ts).
  const harness = withWorkloadWarnings(monitor.finish(), workloads.values());
  return {
    profile,
    workloadHash: deps.workloadHash(profile),
    startedAtWallMs,
    endedAtWallMs: clock.wallMs(),
    // Stopped because every threshold was decided: the run did what it was asked (decided-stop.ts).
    complete: !state.interrupted || state.stopped?.reason === 'decided',
    interrupted: state.interrupted,
    stopped: state.stopped,
    ...(Object.keys(state.sweepRates).length > 0 ? { sweepRates: state.sweepRates } : {}),
    ...(result.serverMetrics === undefined ? {} : { serverMetrics: result.serverMetrics }),
    groups: result.groups,
    timeSeries: result.timeSeries,
    harness,
    tokenizer: tokenizer.name,
    shard,
    startAtWallMs,
  };
}

/**
 * Calls `onTick` every `intervalMs` on `clock`, on a grid from now (a late tick does not move the next
 * ones), until stop().
 */
export function startTicker(clock: Clock, intervalMs: number, onTick: () => void): { stop(): void } {
  let nextMs = clock.nowMs() + intervalMs;
  let stopped = false;
  const fire = (): void => {
    if (stopped) return;
    onTick();
    if (stopped) return;
    const nowMs = clock.nowMs();
    // Ticks missed while the loop was blocked are skipped, not fired in a burst.
    while (nextMs <= nowMs) nextMs += intervalMs;
    timer = clock.setTimer(fire, nextMs - nowMs);
  };
  let timer = clock.setTimer(fire, intervalMs);
  return {
    stop: () => {
      stopped = true;
      clock.clearTimer(timer);
    },
  };
}

interface RunState extends PhaseContext {
  readonly options: RunProfileOptions;
  /** target.server_metrics, when this run scrapes: told every finished record (its phases' windows). */
  readonly scraping: ServerScraping;
  /** Group key -> the rate a sweep's rate phase ran at (sweep-rates.ts). */
  readonly sweepRates: Record<string, number>;
  readonly deps: RunnerDeps;
  readonly monitor: HarnessMonitor;
  readonly groupByIndex: ResolvedGroup[];
  readonly headers: Readonly<Record<string, string>>;
  interrupted: boolean;
  currentScenario: string;
  /** Requests launched before this (µs) are not in the harness's schedule lag (RunControl.harnessRampMs). */
  lagFromUs: number;
  warmingGroups: number;
  /** Why the run stopped early (null: it did not). */
  stopped: RunStopped | null;
}

/**
 * Every tick: the early-stop checks first (an abort_on_fail threshold or max_error_rate that fails stops
 * the run as Ctrl-C does, with its reason), then the progress sink.
 */
function tick(
  state: RunState,
  plan: { plannedMs: number | null; plannedRequests: number | null },
  stop: () => void,
): void {
  const stopped = state.interrupted
    ? null
    : (state.earlyStop?.check((i) => state.collector.live?.(i), state.clock.nowUs()) ?? null);
  if (stopped !== null) {
    state.stopped = stopped;
    stop();
  }
  const sink = state.options.env.events?.onTick;
  if (!sink) return;
  try {
    const nowUs = state.clock.nowUs();
    sink({
      snapshot: state.collector.progress(nowUs),
      scenario: state.currentScenario,
      warmup: state.warmingGroups > 0,
      ...plan,
      server: state.scraping.latest(nowUs),
    });
  } catch {
    // A progress sink that throws must not end the measurement.
  }
}

/** The scenarios one after another (until interrupted); a scenario a shard has no share of is said idle. */
async function runScenarios(
  state: RunState,
  sent: ResolvedProfile,
  idle: ReadonlyMap<string, string> | null,
): Promise<void> {
  const events = state.options.env.events;
  for (const scenario of sent.scenarios) {
    if (state.interrupted) break;
    const groups = sent.groups.filter((group) => group.scenario === scenario.name);
    state.currentScenario = scenario.name;
    const idleReason = idle?.get(scenario.name);
    if (idleReason !== undefined) {
      safeCall(() => events?.onShardIdle?.(scenario, idleReason));
      continue;
    }
    state.lagFromUs = state.clock.nowUs() + (state.options.control.harnessRampMs ?? 0) * 1000;
    safeCall(() => events?.onScenarioStart?.(scenario, groups));
    await runScenario(state, scenario, groups);
  }
}

/** A run interrupted before it started stopped at second 0. */
function stoppedAtStart(interrupted: boolean): RunStopped | null {
  return interrupted ? { reason: 'interrupted', at_s: 0 } : null;
}

/** `--start-at`: says until when, then waits for that wall-clock time (or Ctrl-C, which ends the wait). */
async function waitForStart(options: RunProfileOptions, untilWallMs: number): Promise<void> {
  const { clock, events } = options.env;
  const waitMs = untilWallMs - clock.wallMs();
  safeCall(() => events?.onStartAt?.({ untilWallMs, waitMs }));
  await waitUntilWall(clock, untilWallMs, options.control.interrupt);
}

/** The model pre-flight (model-preflight.ts) with this run's client options. */
function resolveModels(
  options: RunProfileOptions,
  deps: RunnerDeps,
  headers: Record<string, string>,
): Promise<ResolvedProfile> {
  const first = options.profile.scenarios[0];
  if (!first) return Promise.resolve(options.profile);
  return resolveTargetModels(options.profile, clientOptions(options, first, headers, 1), deps);
}

/**
 * Builds every group's workload and makes its first body once (warming caches), so setup cost never lands
 * in a measured request's schedule lag and a workload that cannot be built stops the run before it starts.
 * The answer checks' schemas are compiled from that body (a schema that does not compile stops it too).
 */
function buildWorkloads(
  profile: ResolvedProfile,
  deps: RunnerDeps,
  tokenizer: EncodingTokenizer,
  answers: AnswerCheckStage,
): Map<number, Workload> {
  const workloads = new Map<number, Workload>();
  for (const group of profile.groups) {
    const scenario = profile.scenarios.find((s) => s.name === group.scenario) as ResolvedScenario;
    const workload = deps.createWorkload(scenario, group, tokenizer);
    const first = workload.next(0);
    answers.prepare(first.chatBody ?? first.body, scenario.name);
    workloads.set(group.index, workload);
  }
  return workloads;
}

async function runScenario(
  state: RunState,
  scenario: ResolvedScenario,
  groups: readonly ResolvedGroup[],
): Promise<void> {
  // One schedule per group, or per model x tier x effort for a mix's classes (schedule-unit.ts).
  const units = scheduleUnits(scenario, groups, state.workloads);
  const client = state.deps.createClient(
    clientOptions(state.options, scenario, state.headers, Math.max(1, maxConcurrency(scenario.load) * units.length)),
  );
  const onWarmup = (warming: boolean): void => {
    state.warmingGroups += warming ? 1 : -1;
  };
  // A sweep's rates come from the phases before it: every record of theirs counted first.
  if (scenario.sweep !== undefined) await state.finished.drained();
  try {
    const phases = units.flatMap((unit): GroupPhases[] => {
      const group = unit.groups[0] as ResolvedGroup;
      if (scenario.sweep === undefined) return [groupPhases(state, client, scenario, unit, onWarmup)];
      // A sweep's rate phase runs at a rate measured by its first two phases (sweep-rates.ts).
      const measured = sweepRate(state.groupByIndex, scenario, group, (i) => state.collector.live?.(i));
      if (measured === null || scenario.load.mode !== 'rate') return [];
      state.sweepRates[group.key] = measured.rate;
      safeCall(() => state.options.env.events?.onSweepRate?.(group, measured));
      const atRate = { ...scenario, load: { ...scenario.load, rate: measured.rate } };
      return [groupPhases(state, client, atRate, unit, onWarmup)];
    });
    // Every unit's warmup, then every unit's measured part: they share the target, so they are measured together.
    await Promise.all(phases.map((unit) => unit.warmup()));
    await Promise.all(phases.map((unit) => unit.measure()));
  } finally {
    await client.close();
  }
}

function groupsByIndex(groups: readonly ResolvedGroup[]): ResolvedGroup[] {
  const byIndex: ResolvedGroup[] = [];
  for (const group of groups) byIndex[group.index] = group;
  return byIndex;
}

function finishRecord(state: RunState, record: RequestRecord, values: RecordedValues): void {
  const group = state.groupByIndex[record.groupIndex];
  if (group === undefined) return;
  state.answers.check(record);
  state.scraping.observe(record, values);
  // A later turn or tool round starts at its send: its near-zero lag would dilute the arrivals' lateness.
  if (state.unscheduled.delete(record)) values.schedule_lag_us = Number.NaN;
  if (!record.warmup) {
    state.collector.completed(record, values);
    const lagUs = values.schedule_lag_us;
    if (!Number.isNaN(lagUs) && record.launchUs >= state.lagFromUs) state.monitor.recordScheduleLagUs(lagUs);
  }
  const sink = state.options.env.events?.onRecord;
  if (sink) safeCall(() => sink(record, group, values));
}

/** The client of a scenario: the run's target connection and clock, the scenario's timeouts, retry and encoding. */
function clientOptions(
  options: RunProfileOptions,
  scenario: ResolvedScenario,
  headers: Record<string, string>,
  maxConnections: number,
): ClientOptions {
  const { target, profile } = options;
  return {
    baseUrl: target.baseUrl,
    // The API the scenario speaks (profile/sections/api.ts): its path and how its answers are read.
    api: scenario.api ?? 'chat',
    apiKey: target.apiKey,
    proxy: target.proxy ?? null,
    clock: options.env.clock,
    headers,
    requestIdHeader: profile.target.requestIdHeader,
    traceContext: profile.target.traceContext,
    maxConnections,
    timeouts: scenario.timeouts,
    retry: scenario.retry,
    encoding: scenario.encoding,
    tls: profile.target.tls,
  };
}

function safeCall(fn: () => void): void {
  try {
    fn();
  } catch {
    // Sinks never stop the run (see run-events.ts).
  }
}
