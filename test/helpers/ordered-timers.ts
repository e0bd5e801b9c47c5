/**
 * A test server's schedule of one response: each callback at its own delay from now (absolute times from
 * the request's arrival, so no drift), and always in the order scheduled. Plain setTimeouts of different
 * delays do not keep that order under load: Node keeps one timer list per delay, shared by every request,
 * so another request's earlier timer of the same delay can bring a later token's list forward and fire
 * it before an earlier one (seen: a Responses stream's argument deltas written after its end). Here each
 * timer runs every callback due up to its own, in order; one already run by an earlier timer is skipped.
 */
import type { ServerResponse } from 'node:http';

/**
 * `at(ms, fn)` for one response: callbacks must be scheduled in ascending `ms`; none runs once the
 * response is destroyed. `timers` holds the pending ones, for the server to clear on close.
 */
export function orderedSchedule(
  res: ServerResponse,
  timers: Set<NodeJS.Timeout>,
): (ms: number, fn: () => void) => void {
  const due: (() => void)[] = [];
  let ran = 0;
  return (ms, fn) => {
    const index = due.push(fn) - 1;
    const timer = setTimeout(() => {
      timers.delete(timer);
      while (ran <= index) {
        const next = due[ran] as () => void;
        ran += 1;
        if (!res.destroyed) next();
      }
    }, ms);
    timers.add(timer);
  };
}
