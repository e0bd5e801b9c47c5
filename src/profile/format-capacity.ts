/**
 * The `capacity:` line of `inferbench validate`: how `inferbench capacity` would search, with each
 * scenario's step warmup as it applies (set, the scenario's warmup, or the 5 s default, capped at a quarter
 * of the step), since that part of every step is sent and read by no test.
 */
import { formatDurationMs } from '../util/duration.js';
import { stepWarmupMs } from './resolve-capacity.js';
import type { ResolvedProfile } from './resolved-profile.js';

function warmupSource(profile: ResolvedProfile, scenarioWarmupMs: number): string {
  if (profile.capacity.stepWarmupMs !== null) return 'step_warmup';
  if (scenarioWarmupMs <= 0) return 'default';
  return stepWarmupMs(profile.capacity, scenarioWarmupMs) < scenarioWarmupMs
    ? "the scenario's warmup, capped at a quarter of the step"
    : "the scenario's warmup";
}

function formatStepWarmups(profile: ResolvedProfile): string {
  const each = profile.scenarios.map((scenario) => {
    const ms = stepWarmupMs(profile.capacity, scenario.warmupMs);
    return { name: scenario.name, text: `${formatDurationMs(ms)} (${warmupSource(profile, scenario.warmupMs)})` };
  });
  const texts = new Set(each.map((e) => e.text));
  if (texts.size === 1) return each[0]?.text ?? '-';
  return each.map((e) => `${e.name} ${e.text}`).join(', ');
}

/** One line (ends with a newline). */
export function formatCapacityPlan(profile: ResolvedProfile): string {
  const c = profile.capacity;
  const slo = Object.entries(c.slo);
  const parts = [
    `slo ${slo.length === 0 ? 'none' : slo.map(([k, v]) => `${k} < ${v}`).join(', ')}`,
    `steps of at most ${c.maxStepDurationMs === null ? `${formatDurationMs(c.stepDurationMs)} (longer when a p99 needs it at half the start load: max_step_duration not set)` : formatDurationMs(c.maxStepDurationMs)}, each starting with ${formatStepWarmups(profile)} untested`,
    `blocks of ${formatDurationMs(c.blockMs)}`,
    `resolution ${Math.round(c.resolution * 1000) / 10}%`,
    `at most ${c.maxSteps} steps`,
  ];
  return `capacity (inferbench capacity): ${parts.join('; ')}\n`;
}
