/**
 * The run loop: scenarios one after another; inside a scenario every group (model x tier) at the same
 * time, each with the scenario's whole load, its own schedule and its own workload. Each group runs its
 * warmup (recorded, counted in nothing), then the measured part, then a graceful stop (requests in
 * flight get gracefulStopMs, then are aborted and end as timeouts of phase `total`). An interrupt stops
 * scheduling everywhere, lets the graceful stop run, and returns what was measured with complete=false.
 * Writes nothing itself: records and ticks go to the RunEvents sinks, numbers to the collector.
 *
 * Two clocks, on purpose: the injected `Clock` drives the schedules (a manual clock in tests) and gives
 * the wall-clock labels; every timestamp compared with a request's (the run's start, a request's
 * launch, progress snapshots) is util/clock.ts nowUs(), the performance.now() clock the client stamps
 * records with, so that differences between them are real durations.
 */
import type { Clock } from '../util/clock.js';
import { nowUs } from '../util/clock.js';
import { createRng, hashString } from '../util/rng.js';
import { loadHfTokenizer } from '../util/hf-tokenizer.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import { createRequestRecord } from '../client/request-record.js';
import type { RequestRecord } from '../client/request-record.js';
import type { InferenceClient } from '../client/types.js';
import type { ProxySettings } from '../client/proxy.js';
import type { RunCollector } from '../aggregate/types.js';
import { createEarlyStop, type EarlyStop } from '../aggregate/early-stop.js';
import type { SpendBudget } from '../aggregate/cost-meter.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { LoadSpec, ResolvedGroup, ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';
import type { GroupSummary, HarnessHealth, RunStopped, TimeSeriesPoint } from '../metrics/run-summary.js';
import type { ScheduleLimits, ScheduleRun } from '../schedule/types.js';
import { scheduleSpanMs } from '../schedule/stage-profile.js';
import { shardProfile, shardScheduleSeed, shardWorkloadIndex } from '../schedule/shard.js';
import type { ShardSpec } from '../schedule/shard.js';
import { startHarnessMonitor } from './harness-monitor.js';
import { withWorkloadWarnings } from './workload-warnings.js';
import type { CpuProbe, HarnessMonitor } from './harness-monitor.js';
import { requestHeaders } from './request-headers.js';
import type { RunEvents } from './run-events.js';
import { RecordFinisher } from './record-finisher.js';
import { AnswerCheckStage } from './answer-check-stage.js';
import { maxConcurrency, plannedDurationMs, plannedRequestCount, warmupLoad } from './load-plan.js';
import { scheduleUnits, type ScheduleUnit } from './schedule-unit.js';
import { resolveTargetModels } from './model-preflight.js';
import { defaultRunnerDeps } from './runner-deps.js';
import { waitUntilWall } from './start-at.js';
import { sweepRate } from './sweep-rates.js';
import { conversationsEnded, runConversation } from './conversation.js';
import type { RunnerDeps, Workload, WorkloadRequest } from './runner-deps.js';

export interface RunProfileOptions {
  readonly profile: ResolvedProfile;
  /** Base URL of the target, without `/v1`. */
  readonly baseUrl: string;
  /** Bearer key (never logged); null sends no Authorization header. */
  readonly apiKey: string | null;
  readonly clock: Clock;
  /** Aborted on Ctrl-C: stop scheduling, finish gracefully, return complete=false. */
  readonly interrupt: AbortSignal;
  /** process.cpuUsage from cli/ (null: CPU use reported as 0). */
  readonly cpuProbe: CpuProbe | null;
  /** inferbench version, for the integration header. */
  readonly version: string;
  readonly events?: RunEvents;
  readonly deps?: RunnerDeps;
  /** Tick interval (default 1000 ms). */
  readonly tickIntervalMs?: number;
  /** The proxy environment (HTTPS_PROXY, ...) as cli/ read it; absent: direct connections. */
  readonly proxy?: ProxySettings | null;
  /**
   * Sizes and counts the prompts, and counts received text when a server sends no usage and for the usage
   * check. Default: the profile's target.tokenizer (a tokenizer.json, loaded here), else o200k_base.
   */
  readonly tokenizer?: EncodingTokenizer;
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
  /**
   * `--max-cost`: checked with the early stops on every tick; the run stops like Ctrl-C (stopped.reason
   * max_cost) once the spend reaches it. Absent or null: no budget.
   */
  readonly budget?: SpendBudget | null;
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
}

/** Runs a whole profile against one target. Throws only for a run that cannot start (unreachable target). */
export async function runProfile(options: RunProfileOptions): Promise<RunResult> {
  const deps = options.deps ?? defaultRunnerDeps;
  // A bad tokenizer.json is a profile error (exit 2), found before anything is sent.
  const tokenizerPath = options.profile.target.tokenizer;
  const tokenizer = options.tokenizer ?? (tokenizerPath ? await loadHfTokenizer(tokenizerPath) : o200kTokenizer());
  const headers = requestHeaders(options.version, options.profile.target.headers);
  const profile = await resolveModels(options, deps, headers);
  // The profile as run stays whole in the result (shards of one run record the same profile, for merge);
  // what this process sends is its share.
  const shard = options.shard ?? null;
  const share = shard === null ? null : shardProfile(profile, shard);
  const sent = share === null ? profile : share.profile;
  // The tokenizer loads its vocabulary on first use (seconds): pay that before the clock starts, not
  // inside the first request's latency or as a stall of the event loop mid-run.
  tokenizer.count('inferbench');
  // Every group's workload is built before anything is sent: a dataset or a tokenizer that cannot make
  // exact prompts is a profile error at the start, not the end of a run that already measured scenarios.
  const answers = new AnswerCheckStage();
  const workloads = buildWorkloads(sent, deps, tokenizer, answers);
  if (options.startGate) await options.startGate({ profile, tokenizer: tokenizer.name });
  const startAtWallMs = options.startAtWallMs ?? null;
  if (startAtWallMs !== null) await waitForStart(options, startAtWallMs);
  const startedAtWallMs = options.clock.wallMs();
  const runStartUs = nowUs();
  const collector = deps.createCollector({ groups: profile.groups, slo: profile.slo, runStartUs });
  const monitor = startHarnessMonitor(options.cpuProbe);
  const state: RunState = {
    options,
    deps,
    collector,
    monitor,
    headers,
    nextRecordId: 0,
    interrupted: options.interrupt.aborted,
    activeSchedules: new Set(),
    currentScenario: profile.scenarios[0]?.name ?? '',
    warmingGroups: 0,
    finished: new RecordFinisher({
      tokenizer,
      deadlines: profile.deadlines,
      deliver: (record, values) => finishRecord(state, record, values),
    }),
    groupByIndex: groupsByIndex(profile.groups),
    workloads,
    answers,
    shard,
    earlyStop: createEarlyStop(sent, runStartUs, options.budget ?? null),
    stopped: stoppedAtStart(options.interrupt.aborted),
    sweepRates: {},
    unscheduled: new WeakSet(),
  };
  const onInterrupt = (): void => {
    state.stopped ??= { reason: 'interrupted', at_s: Math.round((nowUs() - runStartUs) / 1000) / 1000 };
    state.interrupted = true;
    // Counting what is still queued must not outlast the graceful stop (record-finisher.ts).
    state.finished.hurry();
    for (const schedule of state.activeSchedules) schedule.stop();
  };
  if (state.interrupted) state.finished.hurry();
  options.interrupt.addEventListener('abort', onInterrupt, { once: true });
  const plan = { plannedMs: plannedDurationMs(sent.scenarios), plannedRequests: plannedRequestCount(sent) };
  const ticker = setInterval(() => tick(state, plan, onInterrupt), options.tickIntervalMs ?? 1000);

  try {
    await runScenarios(state, sent, share?.idle ?? null);
  } finally {
    clearInterval(ticker);
    // In slices, not at once: a large answer still being counted must not hold the loop (nor a signal).
    await state.finished.drained();
    options.interrupt.removeEventListener('abort', onInterrupt);
  }

  const result = collector.finish(nowUs());
  // A dataset whose without_replacement supply ran out says so (workload-warnings.ts).
  const harness = withWorkloadWarnings(monitor.finish(), workloads.values());
  return {
    profile,
    workloadHash: deps.workloadHash(profile),
    startedAtWallMs,
    endedAtWallMs: options.clock.wallMs(),
    complete: !state.interrupted,
    interrupted: state.interrupted,
    stopped: state.stopped,
    ...(Object.keys(state.sweepRates).length > 0 ? { sweepRates: state.sweepRates } : {}),
    groups: result.groups,
    timeSeries: result.timeSeries,
    harness,
    tokenizer: tokenizer.name,
    shard,
    startAtWallMs,
  };
}

interface RunState {
  readonly options: RunProfileOptions;
  /** Group key -> the rate a sweep's rate phase ran at (sweep-rates.ts). */
  readonly sweepRates: Record<string, number>;
  readonly deps: RunnerDeps;
  readonly collector: RunCollector;
  readonly monitor: HarnessMonitor;
  /** Finished records waiting to be counted, aggregated and handed to the sinks (drained before the summary). */
  readonly finished: RecordFinisher;
  readonly groupByIndex: ResolvedGroup[];
  readonly headers: Readonly<Record<string, string>>;
  /** Each group's workload by group index, built before the run started. */
  readonly workloads: ReadonlyMap<number, Workload>;
  /** What each request's answer is checked against, and the checks once it is finished (answer-check-stage.ts). */
  readonly answers: AnswerCheckStage;
  nextRecordId: number;
  interrupted: boolean;
  readonly activeSchedules: Set<ScheduleRun>;
  currentScenario: string;
  warmingGroups: number;
  /** This run's shard: its workload indices and arrival seeds (schedule/shard.ts); null for a whole run. */
  readonly shard: ShardSpec | null;
  /** abort_on_fail thresholds and max_error_rate, checked on every tick; null when the profile has none. */
  readonly earlyStop: EarlyStop | null;
  /** Why the run stopped early (null: it did not). */
  stopped: RunStopped | null;
  /** Records with no intended start (a session's later turns, tool rounds): no schedule lag (finishRecord). */
  readonly unscheduled: WeakSet<RequestRecord>;
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
    : (state.earlyStop?.check((i) => state.collector.live?.(i), nowUs()) ?? null);
  if (stopped !== null) {
    state.stopped = stopped;
    stop();
  }
  const sink = state.options.events?.onTick;
  if (!sink) return;
  try {
    sink({
      snapshot: state.collector.progress(nowUs()),
      scenario: state.currentScenario,
      warmup: state.warmingGroups > 0,
      ...plan,
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
  const events = state.options.events;
  for (const scenario of sent.scenarios) {
    if (state.interrupted) break;
    const groups = sent.groups.filter((group) => group.scenario === scenario.name);
    state.currentScenario = scenario.name;
    const idleReason = idle?.get(scenario.name);
    if (idleReason !== undefined) {
      safeCall(() => events?.onShardIdle?.(scenario, idleReason));
      continue;
    }
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
  const waitMs = untilWallMs - options.clock.wallMs();
  safeCall(() => options.events?.onStartAt?.({ untilWallMs, waitMs }));
  await waitUntilWall(options.clock, untilWallMs, options.interrupt);
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
    answers.prepare(workload.next(0).body, scenario.name);
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
  // A sweep's rates come from the phases before it: every record of theirs counted first.
  if (scenario.sweep !== undefined) await state.finished.drained();
  try {
    await Promise.all(
      units.map((unit) => {
        const group = unit.groups[0] as ResolvedGroup;
        if (scenario.sweep === undefined) return runGroup(state, client, scenario, unit);
        // A sweep's rate phase runs at a rate measured by its first two phases (sweep-rates.ts).
        const measured = sweepRate(state.groupByIndex, scenario, group, (i) => state.collector.live?.(i));
        if (measured === null || scenario.load.mode !== 'rate') return Promise.resolve();
        state.sweepRates[group.key] = measured.rate;
        safeCall(() => state.options.events?.onSweepRate?.(group, measured));
        return runGroup(state, client, { ...scenario, load: { ...scenario.load, rate: measured.rate } }, unit);
      }),
    );
  } finally {
    await client.close();
  }
}

async function runGroup(
  state: RunState,
  client: InferenceClient,
  scenario: ResolvedScenario,
  unit: ScheduleUnit,
): Promise<void> {
  // A shard's arrivals are seeded apart from the other shards' (its prompts are not: see shard.ts).
  const groupSeed = shardScheduleSeed((scenario.seed ^ hashString(unit.key)) >>> 0, state.shard);
  // One workload index across warmup and measurement, so measured requests never repeat warmup prompts;
  // a shard's n-th request is the single run's request i-1 + n*N.
  let workloadIndex = 0;

  const runPhase = async (warmup: boolean, load: LoadSpec, limits: ScheduleLimits): Promise<void> => {
    if (state.interrupted) return;
    // One signal for every request of the phase; the client keeps one listener per signal (abort-fanout.ts).
    const abort = new AbortController();
    // Closed loop: no schedule to be late against, so latencies start at the socket write (request-record.ts).
    const startsAtSend = load.mode === 'concurrency';
    if (!warmup) for (const group of unit.groups) state.earlyStop?.measuring(group.index, nowUs());
    const start = (group: ResolvedGroup, plan: WorkloadRequest, intendedStartMs: number | null, atSend: boolean) => {
      // No intended start (a session's later turn): launched now, on the clock the client stamps with.
      const launchUs = intendedStartMs === null ? nowUs() : Math.round(intendedStartMs * 1000);
      const record = createRequestRecord(state.nextRecordId++, group.index, launchUs, warmup, atSend);
      if (intendedStartMs === null) state.unscheduled.add(record);
      record.expectedInputTokens = plan.expectedInputTokens;
      record.labels = plan.labels ?? null;
      state.answers.expect(record, plan.body, scenario.name);
      if (!warmup) state.collector.started(group.index, nowUs());
      return record;
    };
    // Aggregated and written a moment later, between I/O: never in the burst of reads and relaunches
    // that ends with this request's (util/sliced-queue.ts).
    const finish = (record: RequestRecord): void => state.finished.push(record);
    // session / tool_loop: a launch is a whole conversation, its turns stop at the phase's end (conversation.ts).
    const turns = new AbortController();
    // The schedule's own end: its duration or its stages, whichever is first (closed-loop.ts ends there too).
    const endMs = state.options.clock.nowMs() + scheduleSpanMs(load, limits.durationMs);
    const conversational = unit.groups.some((g) => state.workloads.get(g.index)?.conversation !== undefined);
    const launchConversation = (index: number, intendedStartMs: number): Promise<void> | null => {
      const group = unit.groupAt(index);
      const conversation = state.workloads.get(group.index)?.conversation;
      if (conversation === undefined) return null;
      const send = (plan: WorkloadRequest, at: number | null, atSend: boolean): Promise<RequestRecord> => {
        const record = start(group, plan, at, atSend);
        record.keepContent = true; // the next turn carries this answer (conversation.ts)
        return client.send(plan, record, abort.signal).then(() => record);
      };
      const sender = { send, finish, clock: state.options.clock, stop: turns.signal, endMs };
      return runConversation(conversation(index), intendedStartMs, startsAtSend, sender);
    };
    const launch = (intendedStartMs: number): Promise<void> => {
      const index = shardWorkloadIndex(workloadIndex++, state.shard);
      const conversation = conversational ? launchConversation(index, intendedStartMs) : null;
      if (conversation !== null) return conversation;
      const { group, plan } = unit.next(index);
      const record = start(group, plan, intendedStartMs, startsAtSend);
      return client.send(plan, record, abort.signal).then(() => finish(record));
    };
    const schedule = state.deps.startSchedule(
      load,
      limits,
      {
        launch,
        drop: (intendedStartMs) => {
          // A trace's dropped record takes its index: record n always carries record n's lengths.
          if (!unit.mixed && load.mode === 'rate' && load.trace !== undefined) workloadIndex++;
          // A mix's dropped arrival takes its index too: it counts against the class it would have been.
          const group = unit.mixed ? unit.groupAt(shardWorkloadIndex(workloadIndex++, state.shard)) : unit.groups[0]!;
          if (!warmup) state.collector.dropped(group.index, Math.round(intendedStartMs * 1000));
        },
      },
      { clock: state.options.clock, rng: createRng(groupSeed).fork(warmup ? 'warmup' : 'measure') },
    );
    // Stopping the phase (Ctrl-C, early stop) also ends its conversations after their current request.
    const phase: ScheduleRun = {
      ...schedule,
      stop: () => {
        turns.abort();
        schedule.stop();
      },
    };
    state.activeSchedules.add(phase);
    if (state.interrupted) phase.stop();
    try {
      await schedule.finished;
      if (conversational)
        await conversationsEnded(() => schedule.drained(null), state.options.clock, endMs, turns.signal);
    } finally {
      state.activeSchedules.delete(phase);
    }
    turns.abort();
    // Graceful stop: what is in flight gets gracefulStopMs, then is aborted (recorded as timeout/total).
    if (!(await schedule.drained(scenario.gracefulStopMs))) {
      abort.abort();
      await schedule.drained(null);
    }
  };

  if (scenario.warmupMs > 0 || scenario.warmupRequests > 0) {
    state.warmingGroups++;
    try {
      await runPhase(true, warmupLoad(scenario.load), {
        durationMs: scenario.warmupMs > 0 ? scenario.warmupMs : null,
        requests: scenario.warmupRequests > 0 ? scenario.warmupRequests : null,
      });
    } finally {
      state.warmingGroups--;
    }
  }
  await runPhase(false, scenario.load, { durationMs: scenario.durationMs, requests: scenario.requests });
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
  // A later turn or tool round starts at its send: its near-zero lag would dilute the arrivals' lateness.
  if (state.unscheduled.delete(record)) values.schedule_lag_us = Number.NaN;
  if (!record.warmup) {
    state.collector.completed(record, values);
    const lagUs = values.schedule_lag_us;
    if (!Number.isNaN(lagUs)) state.monitor.recordScheduleLagUs(lagUs);
  }
  const sink = state.options.events?.onRecord;
  if (sink) safeCall(() => sink(record, group, values));
}

function clientOptions(
  options: RunProfileOptions,
  scenario: ResolvedScenario,
  headers: Record<string, string>,
  maxConnections: number,
) {
  return {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    headers,
    requestIdHeader: options.profile.target.requestIdHeader,
    maxConnections,
    timeouts: scenario.timeouts,
    retry: scenario.retry,
    encoding: scenario.encoding,
    tls: options.profile.target.tls,
    proxy: options.proxy ?? null,
  };
}

function safeCall(fn: () => void): void {
  try {
    fn();
  } catch {
    // Sinks never stop the run (see run-events.ts).
  }
}
