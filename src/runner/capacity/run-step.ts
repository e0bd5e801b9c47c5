/**
 * One step of a capacity search: the group alone at one load (step-profile.ts), run by the ordinary
 * runner, watched by a StepMonitor that stops it as soon as it is decided. Stopping is the runner's own
 * graceful stop: nothing new is sent, and what is in flight finishes (or is cut off after the graceful
 * stop), so no backlog leaks into the next step. A step in which the harness was its own bottleneck is
 * INCONCLUSIVE whatever the tests said: its latencies may be the client's. Every time it reads (the
 * monitor's blocks, the step's duration) is the run's clock, the one the client stamps records with, so a
 * search runs the same on the real clock and in virtual time (test/unit/runner/capacity-virtual-time.test.ts).
 */
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import {
  type ServerCheck,
  type ServerObjective,
  serverChecks,
  withServerChecks,
} from '../../aggregate/capacity/server-objective.js';
import type { ServerPhaseSummary } from '../../metrics/server-summary.js';
import type { GroupSummary, HarnessHealth } from '../../metrics/run-summary.js';
import type { CapacitySpec, ResolvedGroup, ResolvedProfile } from '../../profile/resolved-profile.js';
import { STEP_GRACEFUL_STOP_MS } from '../../aggregate/capacity/step-length.js';
import { stepRampBlocks, stepWarmupMs } from '../../profile/sections/capacity.js';
import {
  runProfile,
  type RunEnvironment,
  type RunProfileOptions,
  type RunResult,
  type RunTarget,
} from '../run-profile.js';
import { runProfileInWorkers, type WorkerPoolOptions } from '../run-in-workers.js';
import type { ServerMetricsOutcome } from '../server-scraping.js';
import type { StoredBlock } from './step-block.js';
import { StepMonitor } from './step-monitor.js';
import { stepProfile } from './step-profile.js';

export type StepOutcome = 'pass' | 'fail' | 'inconclusive';

/** What one objective's test saw in a step. */
import type { StepTest } from './step-monitor.js';

export type { StepTest };

export interface StepResult {
  readonly step: number;
  readonly load: number;
  readonly outcome: StepOutcome;
  readonly reason: string;
  readonly durationMs: number;
  readonly tests: readonly StepTest[];
  /** The step's group summary (histograms pooled over the step), as a run's. */
  readonly group: GroupSummary | null;
  readonly harness: HarnessHealth;
  /** The blocks the tests read (block 0, the ramp-up, first), for capacity-steps.json and --reevaluate. */
  readonly blocks: readonly StoredBlock[];
  /** How many of `blocks` are ramp-up, read by no test (1, plus the step's warmup in blocks). */
  readonly rampBlocks: number;
  /** The overload sign that decided it (dropped arrivals, falling behind, an error burst); null otherwise. */
  readonly overload: string | null;
  /** The server over the step's measured window (target.server_metrics); null: not scraped. */
  readonly server: ServerPhaseSummary | null;
  /** Each server objective of the SLO over that window (aggregate/capacity/server-objective.ts). */
  readonly serverChecks: readonly ServerCheck[];
  /** The step's endpoints and their warnings (a failing endpoint), when it scraped; absent or null otherwise. */
  readonly serverMetrics?: ServerMetricsOutcome | null;
}

export interface StepContext {
  /** The run's target connection and environment (its control and events are each step's). */
  readonly run: { readonly target: RunTarget; readonly env: Omit<RunEnvironment, 'events'> };
  readonly interrupt: AbortSignal;
  readonly profile: ResolvedProfile;
  readonly spec: CapacitySpec;
  readonly objectives: readonly CapacityObjective[];
  /** The longest a step runs undecided (run-capacity.ts: max_step_duration or its default); default spec.stepDurationMs. */
  readonly stepCapMs?: number;
  /** `capacity --workers N`: every step's load sent by N worker threads (run-in-workers.ts); null: this thread. */
  readonly workers?: WorkerPoolOptions | null;
  /** The CLI's environment: given, every step scrapes target.server_metrics (run-profile.ts serverMetricsEnv). */
  readonly serverMetricsEnv?: Readonly<Record<string, string | undefined>> | null;
  /** The SLO's bounds on the server's concepts (`kv_cache_usage.max: 95%`), checked over each step; default none. */
  readonly serverObjectives?: readonly ServerObjective[];
}

/** One group of a step and the load it gets (a mixed step runs several at once, sharing the target). */
export interface StepPart {
  readonly group: ResolvedGroup;
  readonly load: number;
  readonly objectives: readonly CapacityObjective[];
  /** Per objective key, the floor under its test's design effect (step-monitor.ts); default none. */
  readonly designEffectFloors?: Readonly<Record<string, number>>;
}

/** A step of one group alone. */
export async function runStep(
  context: StepContext,
  group: ResolvedGroup,
  load: number,
  step: number,
): Promise<StepResult> {
  const [result] = await runStepParts(context, [{ group, load, objectives: context.objectives }], step);
  return result as StepResult;
}

/**
 * A step of several groups at once, each at its own load, each watched by its own monitor against its own
 * objectives (`capacity.mix`: the tiers of a scenario sharing the server). The step ends for all of them
 * when one fails or all have passed (a part that passed keeps sending, so the others still share the
 * server with it), or when the step's time is up. Returns each part's result; a part of a step that
 * another part failed is INCONCLUSIVE unless it had decided by then.
 */
export async function runStepParts(
  context: StepContext,
  parts: readonly StepPart[],
  step: number,
): Promise<StepResult[]> {
  const stop = new AbortController();
  const onInterrupt = (): void => stop.abort();
  context.interrupt.addEventListener('abort', onInterrupt, { once: true });
  // The run's clock, the one the client stamps records with (virtual time on a manual clock, in tests).
  const clock = context.run.env.clock;
  const startedMs = clock.nowMs();
  const monitors = parts.map((part) => {
    const scenario = context.profile.scenarios.find((s) => s.name === part.group.scenario);
    const mode = scenario?.load.mode ?? 'rate';
    const { objectives, load, designEffectFloors } = part;
    const rampBlocks = stepRampBlocks(stepWarmupMs(context.spec, scenario?.warmupMs ?? 0), context.spec.blockMs);
    return new StepMonitor({ ...context.spec, objectives, load, mode, designEffectFloors, rampBlocks });
  });
  const settle = (): void => {
    const decisions = monitors.map((monitor) => monitor.decision);
    const anyFail = decisions.some((decision) => decision?.outcome === 'fail');
    const allPass = decisions.every((decision) => decision?.outcome === 'pass');
    if ((anyFail || allPass) && !stop.signal.aborted) stop.abort();
  };
  try {
    const results = await Promise.all(
      // Only the first part scrapes: the parts share the server, which sees one scraper (as with --workers).
      parts.map((part, i) => runPart(context, part, monitors[i] as StepMonitor, stop.signal, settle, step, i === 0)),
    );
    const shared = results[0]?.groups[0]?.server?.measured ?? null;
    return results.map((result, i) =>
      partResult(context, parts[i] as StepPart, monitors[i] as StepMonitor, result, step, startedMs, shared),
    );
  } finally {
    context.interrupt.removeEventListener('abort', onInterrupt);
  }
}

function runPart(
  context: StepContext,
  part: StepPart,
  monitor: StepMonitor,
  stop: AbortSignal,
  settle: () => void,
  step: number,
  scrape: boolean,
): Promise<RunResult> {
  const capMs = context.stepCapMs ?? context.spec.stepDurationMs;
  const base = stepProfile(context.profile, part.group, part.load, capMs, step);
  const scenario = base.scenarios[0];
  const profile: ResolvedProfile =
    scenario === undefined
      ? base
      : {
          ...base,
          scenarios: [{ ...scenario, gracefulStopMs: Math.min(scenario.gracefulStopMs, STEP_GRACEFUL_STOP_MS) }],
        };
  const options: RunProfileOptions = {
    profile,
    target: context.run.target,
    control: {
      interrupt: stop,
      tickIntervalMs: Math.min(250, context.spec.blockMs),
      // The first block is read by no test; there the fresh threads and connections send late by design.
      harnessRampMs: context.spec.blockMs,
      serverMetricsEnv: scrape ? (context.serverMetricsEnv ?? null) : null,
    },
    env: {
      ...context.run.env,
      events: {
        onScenarioStart: () => monitor.start(context.run.env.clock.nowUs()),
        onRecord: (record, _group, values) => monitor.record(record, values),
        onTick: (tick) => {
          if (monitor.tick(context.run.env.clock.nowUs(), tick.snapshot) !== null) settle();
        },
      },
    },
  };
  const workers = context.workers ?? null;
  return workers === null ? runProfile(options) : runProfileInWorkers(options, workers);
}

function partResult(
  context: StepContext,
  part: StepPart,
  monitor: StepMonitor,
  result: RunResult,
  step: number,
  startedMs: number,
  sharedServer: ServerPhaseSummary | null,
): StepResult {
  const decision = monitor.decision;
  const tests = monitor.testResults();
  const durationMs = context.run.env.clock.nowMs() - startedMs;
  let outcome: StepOutcome = decision?.outcome ?? 'inconclusive';
  let reason =
    decision?.reason ??
    `undecided after ${(durationMs / 1000).toFixed(0)} s: ${tests.map((t) => t.description).join('; ')}`;
  const harness = result.harness;
  let spoiled = true;
  if (context.interrupt.aborted) {
    outcome = 'inconclusive';
    reason = 'interrupted';
  } else if (harness.client_bottleneck) {
    outcome = 'inconclusive';
    reason = `the harness was its own bottleneck (${harness.warnings.join('; ')}); was: ${reason}`;
  } else spoiled = false;
  const group = result.groups[0] ?? null;
  const server = group?.server?.measured ?? sharedServer;
  const checks = serverChecks(server, context.serverObjectives ?? []);
  ({ outcome, reason } = withServerChecks({ outcome, reason, spoiled }, checks));
  return {
    step,
    load: part.load,
    outcome,
    reason,
    durationMs,
    tests,
    group,
    harness,
    blocks: monitor.blocks.map((block) => block.store()),
    rampBlocks: monitor.rampBlocks,
    overload: decision?.signal === 'overload' ? decision.reason : null,
    server,
    serverChecks: checks,
    serverMetrics: result.serverMetrics ?? null,
  };
}
