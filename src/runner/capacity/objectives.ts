/**
 * The objectives of a capacity SLO, checked for a search: at least one, and only latencies the step
 * blocks keep (step-block.ts) or error_rate, since a step can only be decided, and re-evaluated, on those.
 */
import { type CapacityObjective, parseCapacitySlo, parseServerSlo } from '../../aggregate/capacity/capacity-slo.js';
import type { ServerObjective } from '../../aggregate/capacity/server-objective.js';
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

/**
 * The server objectives of a capacity SLO (`kv_cache_usage.max: 95%`), checked with its request objectives;
 * `allowServer` false (a capacity.mix tier's own SLO: the server is the tiers' shared one) refuses them.
 */
export function capacityServerObjectives(
  slo: Readonly<Record<string, number | string>>,
  where: string,
  allowServer = true,
): ServerObjective[] {
  capacityObjectives(slo, where);
  const server = parseServerSlo(slo);
  if (!allowServer && server.length > 0)
    throw new InferbenchError('BAD_PROFILE', `${where}: ${server[0]?.key} bounds the server all tiers share`, {
      hint: 'put server objectives in capacity.slo, where they hold for the whole mix',
    });
  return server;
}
