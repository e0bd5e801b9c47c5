/**
 * The live views a run asked for: `--metrics-port` (or the profile's `live.metrics_port`) serves
 * Prometheus' /metrics, `--dashboard [PORT]` a page of live charts. Started before the first request,
 * so a port that is taken is a usage error before anything is sent.
 */
import { InferbenchError } from '../errors.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import type { ShardSpec } from '../schedule/shard.js';
import type { CliContext } from './context.js';
import { startLiveDashboard } from './live-dashboard.js';
import { startLiveMetrics } from './live-metrics.js';
import type { LiveView } from './live-view.js';

export interface LiveViewFlags {
  'metrics-port'?: string | number;
  'metrics-host'?: string;
  /** `--dashboard` alone is '' (the default port); `--dashboard 0` any free port. */
  dashboard?: string | number;
  /** `--base-url`: the target the dashboard's header names (else the profile's). */
  'base-url'?: string;
}

/** k6's web dashboard port, so a user who knows one knows the other. */
export const DEFAULT_DASHBOARD_PORT = 5665;

/** The port a flag names, or exit 2 with the flag's name. */
export function parsePortFlag(flag: string, value: string | number): number {
  const port = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isInteger(port) || port < 0 || port > 65_535 || (typeof value === 'string' && value.trim() === ''))
    throw new InferbenchError('BAD_USAGE', `--${flag} ${JSON.stringify(value)} is not a port number`, {
      hint: `give a whole number from 0 to 65535 (0: any free port), e.g. --${flag} 9464`,
    });
  return port;
}

/** Starts every view asked for; on a failure closes the ones already started and rethrows. */
export async function startLiveViews(
  flags: LiveViewFlags,
  profile: ResolvedProfile,
  shard: ShardSpec | null,
  ctx: CliContext,
): Promise<LiveView[]> {
  const views: LiveView[] = [];
  try {
    const metrics = await startLiveMetrics({
      port: flags['metrics-port'] === undefined ? null : parsePortFlag('metrics-port', flags['metrics-port']),
      host: flags['metrics-host'] ?? null,
      profile,
      shard,
      ctx,
    });
    if (metrics) views.push(metrics);
    if (flags.dashboard !== undefined) {
      const port = flags.dashboard === '' ? DEFAULT_DASHBOARD_PORT : parsePortFlag('dashboard', flags.dashboard);
      const baseUrl = flags['base-url'] ?? profile.target.baseUrl;
      views.push(await startLiveDashboard({ port, profile, baseUrl, ctx }));
    }
    return views;
  } catch (error) {
    await Promise.allSettled(views.map((view) => view.close()));
    throw error;
  }
}
