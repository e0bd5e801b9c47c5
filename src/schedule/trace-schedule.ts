/**
 * Trace replay (`load: { mode: trace }`): request n starts at start + offset(n) / time_scale, offset(n)
 * being record n's timestamp from the replay's start (the records the resolved profile carries,
 * profile/sections/trace/trace-file.ts). It is an open loop whose arrivals come from a file: same single re-armed PreciseWake, due arrivals started at once with their
 * original intended time, and an arrival that finds max_concurrency requests in flight dropped and
 * counted. A dropped record still takes its number (the runner moves its workload index on), so record n
 * always carries record n's lengths. A shard replays every count-th record from index-1, which is exactly
 * the workload index the runner maps its n-th request to (schedule/shard.ts).
 *
 * Limits: the run ends when the trace does; `duration` cuts it at start + duration; `requests` replays
 * the first N records (of this share), dropped ones included.
 */
import type { LoadSpec, TraceSpec } from '../profile/resolved-profile.js';
import { LaunchTracker } from './launch-tracker.js';
import { PreciseWake } from './precise-wake.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from './types.js';

type RateLoad = Extract<LoadSpec, { mode: 'rate' }>;

/** The replayed offsets (ms from the schedule's start, scaled) of `trace`'s share, in order. */
export function traceOffsetsMs(trace: TraceSpec): Float64Array {
  const records = trace.records;
  const first = (trace.shard?.index ?? 1) - 1;
  const step = trace.shard?.count ?? 1;
  const count = Math.max(0, Math.ceil((records.count - first) / step));
  const offsets = new Float64Array(count);
  for (let i = 0; i < count; i++) offsets[i] = (records.offsetsMs[first + i * step] as number) / trace.timeScale;
  return offsets;
}

export function startTraceSchedule(
  load: RateLoad,
  limits: ScheduleLimits,
  callbacks: ScheduleCallbacks,
  deps: ScheduleDeps,
): ScheduleRun {
  const { clock } = deps;
  // Read (and scaled) before the clock starts: nothing per arrival but an array lookup.
  const offsets = load.trace === undefined ? new Float64Array(0) : traceOffsetsMs(load.trace);
  const startMs = deps.startMs ?? clock.nowMs();
  const endMs = limits.durationMs === null ? Number.POSITIVE_INFINITY : startMs + limits.durationMs;
  const last = Math.min(offsets.length, limits.requests ?? Number.POSITIVE_INFINITY);
  const tracker = new LaunchTracker(callbacks, clock, () => wake.cancel());
  let next = 0;

  const tick = (): void => {
    while (!tracker.done) {
      const targetMs = next < last ? startMs + (offsets[next] as number) : Number.POSITIVE_INFINITY;
      if (!(targetMs < endMs)) {
        tracker.finish(false);
        return;
      }
      if (targetMs > clock.nowMs()) {
        wake.wakeAt(targetMs);
        return;
      }
      if (tracker.inFlight >= load.maxConcurrency) tracker.drop(targetMs);
      else void tracker.launch(targetMs);
      next++;
    }
  };
  const wake = new PreciseWake(clock, tick);
  tick();

  return tracker.run();
}
