/**
 * What watches a run while it goes (Prometheus' /metrics, the live dashboard): the run events it feeds
 * on, what it does when the run has ended, and how it stops. `inferbench run` starts the views its flags
 * and profile ask for, hands their events to the runner, and closes them after the results are written.
 */
import type { LiveGroups } from '../aggregate/early-stop.js';
import type { RunSummary } from '../metrics/run-summary.js';
import type { RunEvents } from '../runner/run-events.js';
import type { RunnerDeps } from '../runner/runner-deps.js';

export interface LiveView {
  /** Where it can be seen (printed once at the start): e.g. `metrics: http://127.0.0.1:9464/metrics`. */
  readonly description: string;
  readonly events: RunEvents;
  /**
   * The run's collector is made: the view reads its groups' numbers (counts, windows) in place from now on
   * rather than counting finished requests itself (the collector is the one owner of the numbers).
   */
  attach(numbers: LiveGroups): void;
  /** The run ended with this summary (results already on disk); null when it ended without one. */
  finish(summary: RunSummary | null): Promise<void>;
  /** Stops serving (idempotent). */
  close(): Promise<void>;
}

/** Every sink of several RunEvents, called in order (a sink that is absent everywhere stays absent). */
export function combineRunEvents(all: readonly RunEvents[]): RunEvents {
  const combined: Record<string, (...args: never[]) => void> = {};
  const names = new Set(all.flatMap((events) => Object.keys(events)));
  for (const name of names) {
    const sinks = all
      .map((events) => (events as Record<string, ((...args: never[]) => void) | undefined>)[name])
      .filter((sink) => sink !== undefined);
    combined[name] =
      sinks.length === 1
        ? (sinks[0] as (...args: never[]) => void)
        : (...args: never[]) => {
            for (const sink of sinks) sink(...args);
          };
  }
  return combined as RunEvents;
}

/** The runner's deps with every view attached to the collector the run makes (the coordinator's with --workers). */
export function attachLiveViews(deps: RunnerDeps, views: readonly LiveView[]): RunnerDeps {
  if (views.length === 0) return deps;
  return {
    ...deps,
    createCollector: (options) => {
      // The dashboard charts the first groups' last seconds: only a run with a live view keeps them.
      const collector = deps.createCollector({ ...options, groupWindows: true });
      const numbers: LiveGroups = (index) => collector.live?.(index);
      for (const view of views) view.attach(numbers);
      return collector;
    },
  };
}
