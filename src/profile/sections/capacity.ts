/**
 * The `capacity:` block of a profile, as written: how `inferbench capacity` searches for the highest load
 * each group takes under its SLO. Values with units are checked here (so a typo gets the file, line and
 * field); what they mean is resolved in resolve-capacity.ts.
 */
import { z } from 'zod';

/** "500ms", "0.5s", "1%", or a bare number (in the metric's own unit: ms for *_ms, a fraction for error_rate). */
const SLO_VALUE_PATTERN = /^\s*\d+(?:\.\d+)?\s*(?:us|ms|s|%)?\s*$/;
/** A fraction written as "5%" or 0.05. */
const FRACTION_PATTERN = /^\s*\d+(?:\.\d+)?\s*%\s*$/;
const DURATION_PATTERN = /^\s*(?:\d+(?:\.\d+)?|(?:\d+(?:\.\d+)?(?:us|ms|s|m|h))+)\s*$/;

const fraction = z.union([
  z.number().gt(0).lt(1),
  z.string().regex(FRACTION_PATTERN, { error: 'expected a percentage like "5%" or a fraction like 0.05' }),
]);
const duration = z.union([
  z.number().positive(),
  z.string().regex(DURATION_PATTERN, { error: 'expected a duration like "30s" or "500ms"' }),
]);

const sloRecord = z.record(
  // fluidity_index (higher is better) takes a low percentile: fluidity_index.p1: 0.9 (capacity-slo.ts).
  z.string().regex(/^(?:[a-z_]+_ms\.p\d+(?:\.\d+)?|fluidity_index\.p\d+(?:\.\d+)?|error_rate)$/, {
    error: 'expected a latency percentile like ttft_ms.p99, fluidity_index.p1 or error_rate',
  }),
  z.union([
    z.number().nonnegative(),
    z.string().regex(SLO_VALUE_PATTERN, { error: 'expected a limit like "500ms", "0.5s" or "1%"' }),
  ]),
);

export const capacitySchema = z
  .strictObject({
    slo: sloRecord.optional().meta({
      description:
        'The SLO every step must hold, e.g. { ttft_ms.p99: 500ms, itl_ms.p99: 50ms, error_rate: 1% }. Default: the top-level slo (numbers in ms).',
    }),
    min_capacity: z.number().positive().optional().meta({
      description: "Exit 99 when a group's capacity (req/s for rate loads, streams for concurrency) is below this.",
    }),
    resolution: fraction
      .optional()
      .meta({ description: 'Stop bisecting when the bracket is this narrow (default 10%).' }),
    max_steps: z.number().int().min(2).max(50).optional().meta({ description: 'Most steps per group (default 12).' }),
    step_duration: duration.optional().meta({
      description: 'Longest a step runs before it is INCONCLUSIVE (default 60s); clear outcomes end sooner.',
    }),
    step_warmup: z
      .union([
        z.number().nonnegative(),
        z.string().regex(DURATION_PATTERN, { error: 'expected a duration like "5s" or "0s"' }),
      ])
      .optional()
      .meta({
        description:
          "Start of every step sent and tested by nothing, so a queue the load builds shows before a decision (default: the scenario's warmup, else 5s, at most a quarter of step_duration).",
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
    description: '`inferbench capacity`: the highest load each group takes under the SLO (see README, Capacity).',
  });

export type CapacityInput = z.infer<typeof capacitySchema>;
