/**
 * Open loop (`mode: rate`): requests start on the arrival times of a seeded process, whatever the server
 * does. Target time = start + offset(i), kept on ONE re-armed timer. When the event loop is late, every due
 * arrival starts at once with its original intended time (never shifted), so client-side delay shows up
 * as schedule lag and in the latencies instead of being hidden. An arrival that finds max_concurrency
 * requests in flight is dropped and counted, never queued. Waits end on time through PreciseWake (a
 * thread sleeping until the target wakes the loop): a timer's own lateness would otherwise be added to
 * every latency measured from the intended start.
 */
import type { LoadSpec } from '../profile/resolved-profile.js';
import { createArrivalProcess } from './arrivals.js';
import { LaunchTracker } from './launch-tracker.js';
import { PreciseWake } from './precise-wake.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from './types.js';

type RateLoad = Extract<LoadSpec, { mode: 'rate' }>;

export function startOpenLoop(
  load: RateLoad,
  limits: ScheduleLimits,
  callbacks: ScheduleCallbacks,
  deps: ScheduleDeps,
): ScheduleRun {
  const { clock } = deps;
  const startMs = deps.startMs ?? clock.nowMs();
  const endMs = limits.durationMs === null ? Number.POSITIVE_INFINITY : startMs + limits.durationMs;
  const maxLaunches = limits.requests ?? Number.POSITIVE_INFINITY;
  const arrivals = createArrivalProcess(load, deps.rng);
  const tracker = new LaunchTracker(callbacks, clock, () => wake.cancel());
  let nextTargetMs = startMs + arrivals.next();

  const tick = (): void => {
    while (!tracker.done) {
      if (!(nextTargetMs < endMs) || tracker.launched >= maxLaunches) {
        tracker.finish(false);
        return;
      }
      const nowMs = clock.nowMs();
      if (nextTargetMs > nowMs) {
        wake.wakeAt(nextTargetMs);
        return;
      }
      if (tracker.inFlight >= load.maxConcurrency) tracker.drop(nextTargetMs);
      else void tracker.launch(nextTargetMs);
      nextTargetMs = startMs + arrivals.next();
    }
  };
  const wake = new PreciseWake(clock, tick);
  tick();

  return tracker.run();
}
