/**
 * One schedule unit of a scenario (a group, or a mix's classes) run as its phases: the warmup (recorded,
 * counted in nothing), then the measured part. A phase owns its schedule, the records of the requests it
 * launches (intended start, warmup flag, expected answer), the drops it counts, its conversations, and its
 * graceful stop (requests in flight get gracefulStopMs, then are aborted and end as timeouts of phase
 * `total`). Every time is read from the run's injected clock, the one the client stamps records with, so
 * a phase runs the same on the real clock and in virtual time.
 */
import type { RequestRecord } from '../client/request-record.js';
import { createRequestRecord } from '../client/request-record.js';
import type { InferenceClient } from '../client/types.js';
import type { EarlyStop } from '../aggregate/early-stop.js';
import type { RunCollector } from '../aggregate/types.js';
import type { LoadSpec, ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { shardScheduleSeed, shardWorkloadIndex, type ShardSpec } from '../schedule/shard.js';
import { scheduleSpanMs } from '../schedule/stage-profile.js';
import type { ScheduleLimits, ScheduleRun } from '../schedule/types.js';
import type { Clock } from '../util/clock.js';
import { createRng, hashString } from '../util/rng.js';
import type { AnswerCheckStage } from './answer-check-stage.js';
import { conversationsEnded, runConversation } from './conversation.js';
import { warmupLoad } from './load-plan.js';
import type { RecordFinisher } from './record-finisher.js';
import type { RunnerDeps, Workload, WorkloadRequest } from './runner-deps.js';
import type { ScheduleUnit } from './schedule-unit.js';

/** What a phase uses of the run: its clock, its layers and the run-wide bookkeeping it adds to. */
export interface PhaseContext {
  readonly clock: Clock;
  readonly deps: Pick<RunnerDeps, 'startSchedule'>;
  readonly collector: RunCollector;
  /** abort_on_fail thresholds and max_error_rate: told when each group's measured part starts. */
  readonly earlyStop: EarlyStop | null;
  readonly answers: AnswerCheckStage;
  /** Finished records, counted a moment later, between I/O (record-finisher.ts). */
  readonly finished: RecordFinisher;
  /** Each group's workload by group index. */
  readonly workloads: ReadonlyMap<number, Workload>;
  /** This run's shard (schedule/shard.ts); null for a whole run. */
  readonly shard: ShardSpec | null;
  /** Records with no intended start (a session's later turns, tool rounds): no schedule lag. */
  readonly unscheduled: WeakSet<RequestRecord>;
  /** The phases running now, stopped together by an interrupt or an early stop. */
  readonly activeSchedules: Set<{ stop(): void }>;
  /** True once the run is interrupted or stopped early: no phase starts. */
  readonly interrupted: boolean;
  /** The next record id of the run. */
  nextRecordId: number;
}

/** A schedule unit's two phases, run by its scenario in step with the other units (run-profile.ts). */
export interface GroupPhases {
  /** The warmup (when the scenario has one; `onWarmup` brackets it), answered before it resolves. */
  warmup(): Promise<void>;
  /** The measured part. */
  measure(): Promise<void>;
}

/**
 * `unit`'s phases: its warmup and its measured part, with one workload index across both, so measured
 * requests never repeat warmup prompts (a shard's n-th request is the single run's request i-1 + n*N).
 * The scenario runs every unit's warmup, then every unit's measured part: the groups of a scenario share
 * the target, so their measured parts start together (a tier whose warmup answers came back first would
 * otherwise be measured mostly alone).
 */
export function groupPhases(
  context: PhaseContext,
  client: InferenceClient,
  scenario: ResolvedScenario,
  unit: ScheduleUnit,
  onWarmup: (warming: boolean) => void,
): GroupPhases {
  const cursor = new WorkloadCursor(context.shard);
  // A shard's arrivals are seeded apart from the other shards' (its prompts are not: see shard.ts).
  const seed = shardScheduleSeed((scenario.seed ^ hashString(unit.key)) >>> 0, context.shard);
  const phase = (warmup: boolean, load: LoadSpec, limits: ScheduleLimits): Phase =>
    new Phase(context, { client, scenario, unit, cursor, seed, warmup, load, limits });
  return {
    async warmup() {
      if (scenario.warmupMs <= 0 && scenario.warmupRequests <= 0) return;
      onWarmup(true);
      try {
        await phase(true, warmupLoad(scenario.load), {
          durationMs: scenario.warmupMs > 0 ? scenario.warmupMs : null,
          requests: scenario.warmupRequests > 0 ? scenario.warmupRequests : null,
        }).run();
      } finally {
        onWarmup(false);
      }
    },
    measure: () => phase(false, scenario.load, { durationMs: scenario.durationMs, requests: scenario.requests }).run(),
  };
}

/** A group's workload indices, shared by its phases: the n-th request (or drop) of the unit, as this shard maps it. */
class WorkloadCursor {
  #count = 0;
  readonly #shard: ShardSpec | null;

  constructor(shard: ShardSpec | null) {
    this.#shard = shard;
  }

  next(): number {
    return shardWorkloadIndex(this.#count++, this.#shard);
  }
}

interface PhaseSpec {
  readonly client: InferenceClient;
  readonly scenario: ResolvedScenario;
  readonly unit: ScheduleUnit;
  readonly cursor: WorkloadCursor;
  /** The unit's schedule seed; a phase forks its own stream from it. */
  readonly seed: number;
  readonly warmup: boolean;
  readonly load: LoadSpec;
  readonly limits: ScheduleLimits;
}

/** One phase of a schedule unit: see the file comment. run() once. */
class Phase {
  readonly #context: PhaseContext;
  readonly #spec: PhaseSpec;
  /** One signal for every request of the phase; the client keeps one listener per signal (abort-fanout.ts). */
  readonly #abort = new AbortController();
  /** session / tool_loop: a launch is a whole conversation, its turns stop at the phase's end (conversation.ts). */
  readonly #turns = new AbortController();
  /** Closed loop: no schedule to be late against, so latencies start at the socket write (request-record.ts). */
  readonly #startsAtSend: boolean;
  readonly #conversational: boolean;
  /** The schedule's own end on the clock: its duration or its stages, whichever is first (set by run()). */
  #endMs = Number.POSITIVE_INFINITY;
  #schedule: ScheduleRun | null = null;

  constructor(context: PhaseContext, spec: PhaseSpec) {
    this.#context = context;
    this.#spec = spec;
    this.#startsAtSend = spec.load.mode === 'concurrency';
    this.#conversational = spec.unit.groups.some((g) => context.workloads.get(g.index)?.conversation !== undefined);
  }

  async run(): Promise<void> {
    const context = this.#context;
    const { load, limits, warmup, unit, scenario } = this.#spec;
    if (context.interrupted) return;
    if (!warmup) for (const group of unit.groups) context.earlyStop?.measuring(group.index, context.clock.nowUs());
    this.#endMs = context.clock.nowMs() + scheduleSpanMs(load, limits.durationMs);
    const schedule = context.deps.startSchedule(
      load,
      limits,
      { launch: this.#launch, drop: this.#drop },
      { clock: context.clock, rng: createRng(this.#spec.seed).fork(warmup ? 'warmup' : 'measure') },
    );
    this.#schedule = schedule;
    context.activeSchedules.add(this);
    if (context.interrupted) this.stop();
    try {
      await schedule.finished;
      if (this.#conversational)
        await conversationsEnded(() => schedule.drained(null), context.clock, this.#endMs, this.#turns.signal);
    } finally {
      context.activeSchedules.delete(this);
    }
    this.#turns.abort();
    // Graceful stop: what is in flight gets gracefulStopMs, then is aborted (recorded as timeout/total).
    if (!(await schedule.drained(scenario.gracefulStopMs))) {
      this.#abort.abort();
      await schedule.drained(null);
    }
  }

  /** Stops launching (Ctrl-C, early stop); its conversations end after their current request. */
  stop(): void {
    this.#turns.abort();
    this.#schedule?.stop();
  }

  readonly #launch = (intendedStartMs: number): Promise<void> => {
    const index = this.#spec.cursor.next();
    const conversation = this.#conversational ? this.#launchConversation(index, intendedStartMs) : null;
    if (conversation !== null) return conversation;
    const { group, plan } = this.#spec.unit.next(index);
    const record = this.#start(group, plan, intendedStartMs, this.#startsAtSend);
    return this.#spec.client.send(plan, record, this.#abort.signal).then(() => this.#finish(record));
  };

  readonly #drop = (intendedStartMs: number): void => {
    const { unit, load, cursor, warmup } = this.#spec;
    // A trace's dropped record takes its index: record n always carries record n's lengths.
    if (!unit.mixed && load.mode === 'rate' && load.trace !== undefined) cursor.next();
    // A mix's dropped arrival takes its index too: it counts against the class it would have been.
    const group = unit.mixed ? unit.groupAt(cursor.next()) : (unit.groups[0] as ResolvedGroup);
    if (!warmup) this.#context.collector.dropped(group.index, Math.round(intendedStartMs * 1000));
  };

  /** Aggregated and written a moment later, between I/O: never in the burst of reads and relaunches that ends with it. */
  #finish(record: RequestRecord): void {
    this.#context.finished.push(record);
  }

  #start(group: ResolvedGroup, plan: WorkloadRequest, intendedStartMs: number | null, atSend: boolean): RequestRecord {
    const context = this.#context;
    const warmup = this.#spec.warmup;
    // No intended start (a session's later turn): launched now, on the clock the client stamps with.
    const launchUs = intendedStartMs === null ? context.clock.nowUs() : Math.round(intendedStartMs * 1000);
    const record = createRequestRecord(context.nextRecordId++, group.index, launchUs, warmup, atSend);
    if (intendedStartMs === null) context.unscheduled.add(record);
    record.expectedInputTokens = plan.expectedInputTokens;
    if (plan.inputs !== undefined) record.inputs = plan.inputs;
    record.labels = plan.labels ?? null;
    // Checked against the tools and response_format as declared, in chat's shape (request-plan.ts).
    context.answers.expect(record, plan.chatBody ?? plan.body, this.#spec.scenario.name);
    if (!warmup) context.collector.started(group.index, context.clock.nowUs());
    return record;
  }

  #launchConversation(index: number, intendedStartMs: number): Promise<void> | null {
    const group = this.#spec.unit.groupAt(index);
    const conversation = this.#context.workloads.get(group.index)?.conversation;
    if (conversation === undefined) return null;
    const send = (plan: WorkloadRequest, at: number | null, atSend: boolean): Promise<RequestRecord> => {
      const record = this.#start(group, plan, at, atSend);
      record.keepContent = true; // the next turn carries this answer (conversation.ts)
      return this.#spec.client.send(plan, record, this.#abort.signal).then(() => record);
    };
    const sender = {
      send,
      finish: (record: RequestRecord) => this.#finish(record),
      clock: this.#context.clock,
      stop: this.#turns.signal,
      endMs: this.#endMs,
    };
    return runConversation(conversation(index), intendedStartMs, this.#startsAtSend, sender);
  }
}
