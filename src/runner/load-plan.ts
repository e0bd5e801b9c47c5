/**
 * Arithmetic on a scenario's load: its warmup load, the most requests it keeps in flight (to size the
 * connection pool), and the planned duration and request count of a profile (for the progress line).
 */
import type { LoadSpec, ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';
import { scheduleUnitCount } from './schedule-unit.js';
import { traceOffsetsMs } from '../schedule/trace-schedule.js';
import { scheduleSpanMs } from '../schedule/stage-profile.js';

/** Warmup runs at the load's first level, without stages (a ramp during warmup would be measured by no one). */
export function warmupLoad(load: LoadSpec): LoadSpec {
  if (!load.stages || load.stages.length === 0) return load;
  const first = load.stages.find((stage) => stage.target > 0) ?? load.stages[0];
  const target = first ? first.target : 1;
  return load.mode === 'concurrency'
    ? { mode: 'concurrency', concurrency: Math.max(1, Math.round(target)), stages: null }
    : { ...load, rate: target > 0 ? target : 1, stages: null };
}

/** The most requests a load keeps in flight (to size the connection pool). */
export function maxConcurrency(load: LoadSpec): number {
  if (load.mode === 'rate') return load.maxConcurrency;
  const stageMax = load.stages ? Math.max(0, ...load.stages.map((stage) => stage.target)) : 0;
  return Math.max(load.concurrency, Math.ceil(stageMax));
}

/** Milliseconds a profile is planned to take (warmups included), for the progress line; null without durations. */
export function plannedDurationMs(scenarios: readonly ResolvedScenario[]): number | null {
  let total = 0;
  for (const scenario of scenarios) {
    // Stages end a schedule whatever its duration says (schedule/stage-profile.ts).
    const durationMs = plannedTrace(scenario)?.durationMs ?? scheduleSpanMs(scenario.load, scenario.durationMs);
    if (!Number.isFinite(durationMs)) return null;
    total += durationMs + scenario.warmupMs;
  }
  return total;
}

/** Requests a profile is planned to send (every group of every scenario); null without request counts. */
export function plannedRequestCount(profile: ResolvedProfile): number | null {
  let total = 0;
  for (const scenario of profile.scenarios) {
    const requests = plannedTrace(scenario)?.requests ?? scenario.requests;
    // `requests` counts sessions (conversations), whose turns and tool rounds are not known in advance.
    if (requests === null || scenario.session !== undefined || scenario.toolLoop !== undefined) return null;
    // A mix's classes share one schedule, and so its request count (schedule-unit.ts).
    total += requests * scheduleUnitCount(profile.groups.filter((group) => group.scenario === scenario.name));
  }
  return total;
}

/**
 * A trace replay's plan: it ends with its trace (or its duration or request count, whichever comes
 * first), so its span (as replayed, this shard's records) and record count; null for other loads.
 */
function plannedTrace(scenario: ResolvedScenario): { durationMs: number; requests: number } | null {
  if (scenario.load.mode !== 'rate' || scenario.load.trace === undefined) return null;
  const offsets = traceOffsetsMs(scenario.load.trace);
  const endMs = scenario.durationMs ?? Number.POSITIVE_INFINITY;
  let requests = Math.min(offsets.length, scenario.requests ?? Number.POSITIVE_INFINITY);
  while (requests > 0 && !((offsets[requests - 1] as number) < endMs)) requests--;
  const spanMs = requests === 0 ? 0 : (offsets[requests - 1] as number);
  // The schedule ends with the last record it replays, not at the duration.
  return { durationMs: spanMs, requests };
}
