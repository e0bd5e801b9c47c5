/**
 * summary.json `harness`: the harness's own health over a run (event-loop delay, CPU use, schedule lag,
 * warnings, whether the client was the bottleneck), with each worker thread's of `run --workers` and each
 * shard's of `merge`. Part of the result schema (run-summary.ts); figures never measured are NaN in memory
 * and null in the file.
 */
import { z } from 'zod';
import { measuredNumber, resultCount } from './result-values.js';

const spreadSchema = z.object({ p50: measuredNumber, p99: measuredNumber, max: measuredNumber });

const harnessFiguresSchema = z.object({
  event_loop_delay_ms: spreadSchema,
  /** Process CPU use over the run, 1.0 = one core fully busy. */
  cpu_utilization: measuredNumber,
  schedule_lag_ms: spreadSchema,
  /** Human warnings when the harness itself may have distorted the numbers. */
  warnings: z.array(z.string()),
  /** True when the client was likely the bottleneck (event-loop delay or schedule lag too high). */
  client_bottleneck: z.boolean(),
});

/** One worker thread of `run --workers N` in summary.json `harness.workers`. */
const workerHealthSchema = z.object({
  /** 1-based, of `workers`. */
  worker: resultCount,
  /** The share it sent, as a shard of the whole run (rates, counts and seeds split like `--shard`). */
  share: z.object({ index: resultCount, count: resultCount }),
  /** False when it was interrupted or ended before its share was done (then harness.warnings says why). */
  complete: z.boolean(),
  /** Its CPU use is its thread's event-loop utilisation (busy time / wall time), not the process's. */
  health: harnessFiguresSchema,
});

/** One shard's entry in a merged run's `harness.shards` (report/merge/merge-runs.ts). */
const shardHealthSchema = z.object({
  run_id: z.string(),
  dir: z.string(),
  shard: z.object({ index: resultCount, count: resultCount }).nullable(),
  started_at: z.string(),
  ended_at: z.string(),
  complete: z.boolean(),
  health: harnessFiguresSchema,
});

export const harnessHealthSchema = harnessFiguresSchema.extend({
  /**
   * `run --workers N`: each worker thread's own health (the figures above are the worst of them, its
   * warnings named by worker). Absent for a run in one thread.
   */
  workers: z.array(workerHealthSchema).optional(),
  /** A merged run (`merge`): each shard's own health. Absent otherwise. */
  shards: z.array(shardHealthSchema).optional(),
});
export type HarnessHealth = z.output<typeof harnessHealthSchema>;
export type WorkerHealth = z.output<typeof workerHealthSchema>;

/** The harness of a summary written before harness health was recorded: nothing measured. */
export const UNMEASURED_HARNESS: HarnessHealth = {
  event_loop_delay_ms: { p50: Number.NaN, p99: Number.NaN, max: Number.NaN },
  cpu_utilization: Number.NaN,
  schedule_lag_ms: { p50: Number.NaN, p99: Number.NaN, max: Number.NaN },
  warnings: [],
  client_bottleneck: false,
};
