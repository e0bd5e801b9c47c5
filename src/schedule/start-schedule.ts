/**
 * Entry point of schedule/: picks the strategy for the load mode (closed loop for `concurrency`, open loop
 * for `rate`) from a registry the compiler checks, and starts it. The schedule only decides *when*; the
 * runner's `launch` callback does the sending.
 */
import type { LoadSpec } from '../profile/resolved-profile.js';
import { startClosedLoop } from './closed-loop.js';
import { startOpenLoop } from './open-loop.js';
import { startTraceSchedule } from './trace-schedule.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from './types.js';

export type ScheduleKind = LoadSpec['mode'];

type ScheduleFactory<K extends ScheduleKind> = (
  load: Extract<LoadSpec, { mode: K }>,
  limits: ScheduleLimits,
  callbacks: ScheduleCallbacks,
  deps: ScheduleDeps,
) => ScheduleRun;

/** Schedule strategies by load mode. */
export const SCHEDULES = {
  concurrency: startClosedLoop,
  rate: startOpenLoop,
} as const satisfies { [K in ScheduleKind]: ScheduleFactory<K> };

/**
 * Starts launching requests for `load` until a limit is reached or `stop()` is called. Stages end the
 * schedule when they are over, whatever `limits.durationMs` says.
 */
export function startSchedule(
  load: LoadSpec,
  limits: ScheduleLimits,
  callbacks: ScheduleCallbacks,
  deps: ScheduleDeps,
): ScheduleRun {
  switch (load.mode) {
    case 'concurrency':
      return SCHEDULES.concurrency(load, limits, callbacks, deps);
    case 'rate':
      // A trace replay is an open loop whose arrivals come from its file.
      if (load.trace !== undefined) return startTraceSchedule(load, limits, callbacks, deps);
      return SCHEDULES.rate(load, limits, callbacks, deps);
  }
}
