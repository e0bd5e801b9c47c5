/**
 * The `capacity:` section of a profile: how `inferbench capacity` searches for the highest load each group
 * takes under its SLO. Its schema (values with units are checked there, so a typo gets the file, line and
 * field), the rule one field's schema cannot state, its defaults and resolution, and its `validate` line.
 * The SLO stays as written (numbers or strings with units); aggregate/capacity/capacity-slo.ts reads its
 * meaning.
 */
import { z } from 'zod';
import type { ServiceTier } from '../../protocol/chat.js';
import { formatDurationMs, parseDurationMs } from '../../util/duration.js';
import {
  SERVER_CONCEPTS,
  SERVER_OBJECTIVE_STATS,
  type ServerConcept,
  serverStatProblem,
} from '../../metrics/server-concepts.js';
import { DURATION_PATTERN as DURATION_SOURCE } from '../field-kinds.js';
import type { ProfileIssue } from '../profile-issue.js';
import type { CapacitySpec, ResolvedProfile } from '../resolved-profile.js';

/** "500ms", "0.5s", "1%", or a bare number (in the metric's own unit: ms for *_ms, a fraction for error_rate). */
const SLO_VALUE_PATTERN = /^\s*\d+(?:\.\d+)?\s*(?:us|ms|s|%)?\s*$/;
/** A fraction written as "5%" or 0.05. */
const FRACTION_PATTERN = /^\s*\d+(?:\.\d+)?\s*%\s*$/;
const DURATION_PATTERN = new RegExp(DURATION_SOURCE);

const fraction = z.union([
  z.number().gt(0).lt(1),
  z.string().regex(FRACTION_PATTERN, { error: 'expected a percentage like "5%" or a fraction like 0.05' }),
]);
const duration = z.union([
  z.number().positive(),
  z.string().regex(DURATION_PATTERN, { error: 'expected a duration like "30s" or "500ms"' }),
]);

/** A bound on a server concept over each step (`kv_cache_usage.max`): not a latency percentile, fluidity_index nor error_rate. */
const SERVER_STATS = SERVER_OBJECTIVE_STATS.join('|');
const SERVER_SLO_KEY = new RegExp(`^(?![a-z][a-z0-9_]*_ms\\.|fluidity_index\\.)[a-z_]+\\.(?:${SERVER_STATS})$`);

const sloRecord = z.record(
  // A latency's name may hold a digit (e2e_ms: the only latency of api: embeddings).
  // fluidity_index (higher is better) takes a low percentile: fluidity_index.p1: 0.9 (capacity-slo.ts); a
  // server concept a statistic of each step's window: kv_cache_usage.max: 95% (server-objective.ts).
  z
    .string()
    .regex(
      new RegExp(
        `^(?:[a-z][a-z0-9_]*_ms\\.p\\d+(?:\\.\\d+)?|fluidity_index\\.p\\d+(?:\\.\\d+)?|error_rate|[a-z_]+\\.(?:${SERVER_STATS}))$`,
      ),
      {
        error:
          'expected a latency percentile like ttft_ms.p99, fluidity_index.p1, error_rate or a server concept like kv_cache_usage.max',
      },
    ),
  z.union([
    z.number().nonnegative(),
    z.string().regex(SLO_VALUE_PATTERN, { error: 'expected a limit like "500ms", "0.5s" or "1%"' }),
  ]),
);

// ---- schema: the block as written

export const capacitySchema = z
  .strictObject({
    slo: sloRecord.optional().meta({
      description:
        "The SLO every step must hold, e.g. { ttft_ms.p99: 500ms, itl_ms.p99: 50ms, error_rate: 1% }; with target.server_metrics also bounds on the server's concepts over each step, e.g. kv_cache_usage.max: 95%, waiting.mean: 8. Default: the top-level slo (numbers in ms).",
    }),
    min_capacity: z.number().positive().optional().meta({
      description: "Exit 99 when a group's capacity (req/s for rate loads, streams for concurrency) is below this.",
    }),
    resolution: fraction
      .optional()
      .meta({ description: 'Stop bisecting when the bracket is this narrow (default 10%).' }),
    max_steps: z.number().int().min(2).max(50).optional().meta({ description: 'Most steps per group (default 12).' }),
    max_step_duration: duration.optional().meta({
      description:
        "Longest a step runs while its tests are undecided (default: long enough that a p99 objective decides at half the search's start load, at least 60s); steps end at their decision, and a search never runs a load too low for its SLO's tests to decide within it.",
    }),
    step_duration: duration.optional().meta({
      description: 'The older name of max_step_duration (not both).',
    }),
    step_warmup: z
      .union([
        z.number().nonnegative(),
        z.string().regex(DURATION_PATTERN, { error: 'expected a duration like "5s" or "0s"' }),
      ])
      .optional()
      .meta({
        description:
          "Start of every step sent and tested by nothing, so a queue the load builds shows before a decision (default: the scenario's warmup, else 5s, at most a quarter of max_step_duration or of 60s).",
      }),
    block: duration.optional().meta({ description: 'Length of the blocks the sequential test reads (default 1s).' }),
    alpha: z
      .number()
      .gt(0)
      .lt(0.5)
      .optional()
      .meta({ description: 'Chance of failing a load that holds the SLO (default 0.05).' }),
    beta: z
      .number()
      .gt(0)
      .lt(0.5)
      .optional()
      .meta({ description: 'Chance of passing a load that breaks it (default 0.05).' }),
    indifference: fraction.optional().meta({
      description: 'Half-width of the indifference zone around the allowed exceedance, relative (default 50%).',
    }),
    start: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'First load to try (default: from a calibration probe).' }),
    max_load: z.number().positive().optional().meta({ description: 'Highest load to try (default 4096).' }),
    seed: z.number().int().min(0).optional().meta({ description: 'Seed of the interval (default 1).' }),
    mix: z
      .partialRecord(
        z.enum(['priority', 'default', 'auto', 'flex']),
        z.strictObject({
          weight: z.number().positive().meta({ description: "This tier's share of the total load." }),
          slo: sloRecord.optional().meta({ description: "This tier's own SLO (default: capacity.slo)." }),
        }),
      )
      .optional()
      .meta({
        description:
          "Search each scenario's tiers together, sharing the target: the highest total load at which every tier meets its SLO, its load split by weight, e.g. { default: { weight: 3 }, flex: { weight: 1, slo: { ttft_ms.p95: 5s } } }.",
      }),
  })
  .meta({
    description: '`inferbench capacity`: the highest load each group takes under the SLO (see docs/capacity.md).',
  });

export type CapacityInput = z.infer<typeof capacitySchema>;

// ---- defaults and resolution

export const CAPACITY_DEFAULTS = {
  resolution: 0.1,
  maxSteps: 12,
  stepDurationMs: 60_000,
  blockMs: 1000,
  alpha: 0.05,
  beta: 0.05,
  indifference: 0.5,
  maxLoad: 4096,
  seed: 1,
  stepWarmupMs: 5000,
} as const;

/**
 * The untested start of a capacity step: `step_warmup`, else the scenario's `warmup`, else 5 s; the default
 * (either source) at most a quarter of the step, so that a scenario's run warmup (often longer than a
 * step) never leaves a step with nothing tested. A step starts with an empty queue; at a load just over
 * what the server sustains the backlog takes seconds to build, and a step tested from its first second
 * can pass on the transient (measured: 7 and 1 of 10 seeded searches held the truth in their interval
 * without it, 10 of 10 with 5 s; `npm run bench capacity`).
 */
export function stepWarmupMs(spec: CapacitySpec, scenarioWarmupMs: number): number {
  if (spec.stepWarmupMs !== null) return spec.stepWarmupMs;
  const wanted = scenarioWarmupMs > 0 ? scenarioWarmupMs : CAPACITY_DEFAULTS.stepWarmupMs;
  return Math.min(wanted, spec.stepDurationMs / 4);
}

/**
 * Blocks of a step read by no test: the first (connections opening), and those of the step's warmup
 * (stepWarmupMs), sent at the start of every step and keeping the queue it builds (runner/capacity
 * step-monitor.ts rampBlocks).
 */
export function stepRampBlocks(warmupMs: number, blockMs: number): number {
  return 1 + Math.ceil(Math.max(0, warmupMs) / blockMs);
}

function fractionOf(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : Number.parseFloat(value) / 100;
}

function durationMs(value: number | string | undefined, fallback: number): number {
  return value === undefined ? fallback : (parseDurationMs(value) ?? fallback);
}

/** `capacity:` with its defaults; `slo` falls back to the profile's top-level slo. */
export function resolveCapacity(input: CapacityInput | undefined, slo: Readonly<Record<string, number>>): CapacitySpec {
  const spec = input ?? {};
  const stated = spec.max_step_duration ?? spec.step_duration;
  return {
    slo: { ...(spec.slo ?? slo) },
    minCapacity: spec.min_capacity ?? null,
    resolution: fractionOf(spec.resolution, CAPACITY_DEFAULTS.resolution),
    maxSteps: spec.max_steps ?? CAPACITY_DEFAULTS.maxSteps,
    stepDurationMs: durationMs(stated, CAPACITY_DEFAULTS.stepDurationMs),
    maxStepDurationMs: stated === undefined ? null : durationMs(stated, CAPACITY_DEFAULTS.stepDurationMs),
    stepWarmupMs: spec.step_warmup === undefined ? null : durationMs(spec.step_warmup, 0),
    blockMs: durationMs(spec.block, CAPACITY_DEFAULTS.blockMs),
    alpha: spec.alpha ?? CAPACITY_DEFAULTS.alpha,
    beta: spec.beta ?? CAPACITY_DEFAULTS.beta,
    indifference: fractionOf(spec.indifference, CAPACITY_DEFAULTS.indifference),
    start: spec.start ?? null,
    maxLoad: spec.max_load ?? CAPACITY_DEFAULTS.maxLoad,
    seed: spec.seed ?? CAPACITY_DEFAULTS.seed,
    mix:
      spec.mix === undefined
        ? null
        : Object.entries(spec.mix).flatMap(([tier, member]) =>
            member === undefined ? [] : [{ tier: tier as ServiceTier, weight: member.weight, slo: member.slo ?? null }],
          ),
  };
}

// ---- checks

function durationOf(value: unknown, fallback: number): number | null {
  if (value === undefined) return fallback;
  return typeof value === 'number' || typeof value === 'string' ? (parseDurationMs(value) ?? null) : null;
}

/**
 * A step's untested start (its first block and `step_warmup`, in whole blocks) and its last block must
 * leave at least one block of the step for the tests to read; otherwise every step runs its whole `max_step_duration` and ends
 * INCONCLUSIVE. `step_duration` is the older name of `max_step_duration`: one of the two.
 */
export function checkCapacity(capacity: unknown): ProfileIssue[] {
  if (typeof capacity !== 'object' || capacity === null) return [];
  const fields = capacity as Record<string, unknown>;
  const issues: ProfileIssue[] = [];
  // A server objective on a statistic its concept's kind lacks would never decide a step (waiting.per_s).
  if (typeof fields.slo === 'object' && fields.slo !== null)
    for (const key of Object.keys(fields.slo)) {
      const dot = key.indexOf('.');
      const concept = key.slice(0, dot);
      // A statistic no kind has is the key's pattern's to refuse (sloRecord).
      if (!SERVER_SLO_KEY.test(key) || !(SERVER_CONCEPTS as readonly string[]).includes(concept)) continue;
      const problem = serverStatProblem(concept as ServerConcept, key.slice(dot + 1));
      if (problem !== null) issues.push({ path: ['capacity', 'slo', key], message: problem });
    }
  if (fields.max_step_duration !== undefined && fields.step_duration !== undefined)
    issues.push({
      path: ['capacity', 'step_duration'],
      message: 'step_duration is the older name of max_step_duration: set one of them',
    });
  if (fields.step_warmup === undefined) return issues;
  const key = fields.max_step_duration !== undefined ? 'max_step_duration' : 'step_duration';
  const warmupMs = durationOf(fields.step_warmup, 0);
  const durationMs = durationOf(fields.max_step_duration ?? fields.step_duration, CAPACITY_DEFAULTS.stepDurationMs);
  const blockMs = durationOf(fields.block, CAPACITY_DEFAULTS.blockMs);
  if (warmupMs === null || durationMs === null || blockMs === null || blockMs <= 0) return issues;
  const untested = stepRampBlocks(warmupMs, blockMs);
  // The runner's arithmetic (aggregate/capacity/step-length.ts testedSeconds): the last block may close
  // after the step ends and is not counted on either.
  if (untested + 1 < Math.floor(durationMs / blockMs)) return issues;
  issues.push({
    path: ['capacity', 'step_warmup'],
    message: `a step's untested start (step_warmup ${warmupMs / 1000} s and the first block: ${untested} blocks of ${blockMs / 1000} s) and its last block leave no block of the step (${key} ${durationMs / 1000} s) for the tests: make ${key} at least ${((untested + 2) * blockMs) / 1000} s`,
  });
  return issues;
}

// ---- validate

function warmupSource(profile: ResolvedProfile, scenarioWarmupMs: number): string {
  if (profile.capacity.stepWarmupMs !== null) return 'step_warmup';
  if (scenarioWarmupMs <= 0) return 'default';
  return stepWarmupMs(profile.capacity, scenarioWarmupMs) < scenarioWarmupMs
    ? "the scenario's warmup, capped at a quarter of the step"
    : "the scenario's warmup";
}

function formatStepWarmups(profile: ResolvedProfile): string {
  const each = profile.scenarios.map((scenario) => {
    const ms = stepWarmupMs(profile.capacity, scenario.warmupMs);
    return { name: scenario.name, text: `${formatDurationMs(ms)} (${warmupSource(profile, scenario.warmupMs)})` };
  });
  const texts = new Set(each.map((e) => e.text));
  if (texts.size === 1) return each[0]?.text ?? '-';
  return each.map((e) => `${e.name} ${e.text}`).join(', ');
}

/**
 * The `capacity:` line of `inferbench validate`: how `inferbench capacity` would search, with each
 * scenario's step warmup as it applies (set, the scenario's warmup, or the 5 s default, capped at a quarter
 * of the step), since that part of every step is sent and read by no test. One line (ends with a newline).
 */
export function formatCapacityPlan(profile: ResolvedProfile): string {
  const c = profile.capacity;
  const slo = Object.entries(c.slo);
  const parts = [
    `slo ${slo.length === 0 ? 'none' : slo.map(([k, v]) => `${k} ${SERVER_SLO_KEY.test(k) ? '<=' : '<'} ${v}`).join(', ')}`,
    `steps of at most ${c.maxStepDurationMs === null ? `${formatDurationMs(c.stepDurationMs)} (longer when a p99 needs it at half the start load: max_step_duration not set)` : formatDurationMs(c.maxStepDurationMs)}, each starting with ${formatStepWarmups(profile)} untested`,
    `blocks of ${formatDurationMs(c.blockMs)}`,
    `resolution ${Math.round(c.resolution * 1000) / 10}%`,
    `at most ${c.maxSteps} steps`,
  ];
  return `capacity (inferbench capacity): ${parts.join('; ')}\n`;
}
