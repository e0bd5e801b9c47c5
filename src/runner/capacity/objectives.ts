/**
 * The objectives of a capacity SLO, checked for a search: at least one, and only latencies the step
 * blocks keep (step-block.ts) or error_rate, since a step can only be decided, and re-evaluated, on those.
 */
import { type CapacityObjective, parseCapacitySlo } from '../../aggregate/capacity/capacity-slo.js';
import { InferbenchError } from '../../errors.js';
import { BLOCK_METRICS } from './step-block.js';

/** `where` names the SLO in errors, e.g. "capacity.slo (or slo)" or "--slo". */
export function capacityObjectives(slo: Readonly<Record<string, number | string>>, where: string): CapacityObjective[] {
  const objectives = parseCapacitySlo(slo);
  if (objectives.length === 0)
    throw new InferbenchError('BAD_PROFILE', `capacity needs an SLO: ${where} is empty`, {
      hint: 'e.g. capacity: { slo: { ttft_ms.p99: 500ms, error_rate: 1% } }',
    });
  const kept: readonly string[] = [...BLOCK_METRICS, 'error_rate'];
  for (const objective of objectives)
    if (!kept.includes(objective.metric))
      throw new InferbenchError('BAD_PROFILE', `${where}: ${objective.key} cannot be searched on`, {
        hint: `capacity objectives are percentiles of ${BLOCK_METRICS.join(', ')}, or error_rate`,
      });
  return objectives;
}
