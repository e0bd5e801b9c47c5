/**
 * Open loop (`mode: rate`): requests start on the arrival times of a seeded process, whatever the server
 * does. Target time = start + offset(i), kept on ONE re-armed timer. When the event loop is late, every due
 * arrival starts at once with its original intended time (never shifted), so client-side delay shows up
 * as schedule lag and in the latencies instead of being hidden. An arrival that finds max_concurrency
 * requests in flight is dropped and counted, never queued.
 */
import type { LoadSpec } from '../profile/resolved-profile.js';
import { createArrivalProcess } from './arrivals.js';
import { LaunchTracker } from './launch-tracker.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from './types.js';

type RateLoad = Extract<LoadSpec, { mode: 'rate' }>;

export function startOpenLoop(load: RateLoad, limits: ScheduleLimits, callbacks: ScheduleCallbacks, deps: ScheduleDeps): ScheduleRun {
  const { clock } = deps;
  const startMs = deps.startMs ?? clock.nowMs();
  const endMs = limits.durationMs === null ? Number.POSITIVE_INFINITY : startMs + limits.durationMs;
  const maxLaunches = limits.requests ?? Number.POSITIVE_INFINITY;
  const arrivals = createArrivalProcess(load, deps.rng);
  let timer: NodeJS.Timeout | undefined;
  const tracker = new LaunchTracker(callbacks, () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  });
  let nextTargetMs = startMs + arrivals.next();

  const tick = (): void => {
    timer = undefined;
    while (!tracker.done) {
      if (!(nextTargetMs < endMs) || tracker.launched >= maxLaunches) {
        tracker.finish(false);
        return;
      }
      const nowMs = clock.nowMs();
      if (nextTargetMs > nowMs) {
        // Timers run on whole milliseconds and may wake a fraction early: ceil, and re-check on wake-up.
        timer = setTimeout(tick, Math.max(1, Math.ceil(nextTargetMs - nowMs)));
        return;
      }
      if (tracker.inFlight >= load.maxConcurrency) tracker.drop(nextTargetMs);
      else void tracker.launch(nextTargetMs);
      nextTargetMs = startMs + arrivals.next();
    }
  };
  tick();

  return {
    finished: tracker.finished,
    stop: () => tracker.finish(true),
    inFlight: () => tracker.inFlight,
  };
}
