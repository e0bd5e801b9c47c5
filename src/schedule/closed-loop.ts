/**
 * Closed loop (`mode: concurrency`): N workers, each starts a request, waits for it to end and starts the
 * next; the launch is the moment it is handed to the client (its latencies start at the socket write,
 * see client/request-record.ts), paced so that a burst of relaunches never holds the event loop. With stages the number of workers follows the stage
 * target over time (linear ramps interpolate, rounded to the nearest whole worker; step stages hold):
 * new workers start at once, surplus workers leave after their current request.
 */
import type { LoadSpec } from '../profile/resolved-profile.js';
import type { TimerHandle } from '../util/clock.js';
import { LaunchPacer } from './launch-pacer.js';
import { LaunchTracker } from './launch-tracker.js';
import { createStageProfile, scheduleSpanMs } from './stage-profile.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from './types.js';

type ConcurrencyLoad = Extract<LoadSpec, { mode: 'concurrency' }>;

/** How often the worker count is re-evaluated while stages run. */
const STAGE_TICK_MS = 50;

export function startClosedLoop(
  load: ConcurrencyLoad,
  limits: ScheduleLimits,
  callbacks: ScheduleCallbacks,
  deps: ScheduleDeps,
): ScheduleRun {
  const { clock } = deps;
  const startMs = deps.startMs ?? clock.nowMs();
  const stages = load.stages && load.stages.length > 0 ? createStageProfile(load.stages) : null;
  const endMs = startMs + scheduleSpanMs(load, limits.durationMs);
  const maxLaunches = limits.requests ?? Number.POSITIVE_INFINITY;
  let timer: TimerHandle | undefined;
  const tracker = new LaunchTracker(callbacks, clock, () => {
    if (timer !== undefined) clock.clearTimer(timer);
    timer = undefined;
  });
  const slotRunning: boolean[] = [];
  // Every launch waits for a check-phase turn and launches share a time slice per turn (launch-pacer.ts).
  // That also keeps requests that settle without I/O from relaunching in microtasks forever.
  const pacer = new LaunchPacer(clock);
  let desired = 0;

  const worker = async (slot: number): Promise<void> => {
    slotRunning[slot] = true;
    while (!tracker.done && slot < desired) {
      await pacer.permit();
      if (tracker.done || slot >= desired) break;
      const nowMs = clock.nowMs();
      if (nowMs >= endMs || tracker.launched >= maxLaunches) {
        tracker.finish(false);
        break;
      }
      const settled = tracker.launch(nowMs);
      if (tracker.launched >= maxLaunches) tracker.finish(false);
      await settled;
    }
    slotRunning[slot] = false;
  };

  const setDesired = (count: number): void => {
    desired = count;
    for (let slot = 0; slot < desired && !tracker.done; slot++) {
      if (!slotRunning[slot]) void worker(slot);
    }
  };

  const control = (): void => {
    timer = undefined;
    if (tracker.done) return;
    const nowMs = clock.nowMs();
    if (nowMs >= endMs) {
      tracker.finish(false);
      return;
    }
    if (stages) {
      setDesired(Math.round(stages.targetAt(nowMs - startMs) ?? 0));
      if (!tracker.done)
        timer = clock.setTimer(control, Math.max(1, Math.min(STAGE_TICK_MS, Math.ceil(endMs - nowMs))));
    } else if (endMs !== Number.POSITIVE_INFINITY) {
      timer = clock.setTimer(control, Math.max(1, Math.ceil(endMs - nowMs)));
    }
  };

  if (!stages) setDesired(load.concurrency);
  control();

  return tracker.run();
}
