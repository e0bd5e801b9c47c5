/**
 * The live views a run asked for: `--metrics-port` (or the profile's `live.metrics_port`) serves
 * Prometheus' /metrics, `--dashboard [PORT]` a page of live charts. Started before the first request,
 * so a port that is taken is a usage error before anything is sent.
 */
import { InferbenchError } from '../errors.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import type { ShardSpec } from '../schedule/shard.js';
import type { CliContext } from './context.js';
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

/** The usual port of a flag, for its hints (9464: Prometheus' exporters'). */
function examplePort(flag: string): number {
  return flag === 'dashboard' ? DEFAULT_DASHBOARD_PORT : 9464;
}

/** The port a flag names, or exit 2 with the flag's name. */
export function parsePortFlag(flag: string, value: string | number): number {
  const port = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isInteger(port) || port < 0 || port > 65_535 || (typeof value === 'string' && value.trim() === ''))
    throw new InferbenchError('BAD_USAGE', `--${flag} ${JSON.stringify(value)} is not a port number`, {
      hint: `give a whole number from 0 to 65535 (0: any free port), e.g. --${flag} ${examplePort(flag)}`,
    });
  return port;
}

/** The port flags checked before anything starts (an emulator, a pre-flight): a typo costs nothing. */
export function checkLiveViewFlags(flags: LiveViewFlags): void {
  if (flags['metrics-port'] !== undefined) parsePortFlag('metrics-port', flags['metrics-port']);
  if (flags.dashboard !== undefined && flags.dashboard !== '') parsePortFlag('dashboard', flags.dashboard);
}

/** What the flags and the profile's `live:` decide alone, checked before the target is opened (an emulator start). */
export function checkLiveViewsOf(flags: LiveViewFlags, profile: Pick<ResolvedProfile, 'live'>): void {
  if (flags['metrics-host'] !== undefined && flags['metrics-port'] === undefined && profile.live?.metricsPort == null)
    throw new InferbenchError('BAD_USAGE', '--metrics-host needs a port to serve /metrics on', {
      hint: 'add --metrics-port PORT (e.g. 9464), or live: { metrics_port: 9464 } to the profile',
    });
}

/**
 * `--repeat N` runs one after another, each serving its views in turn: on a port given as 0 each would
 * listen somewhere else, and neither Prometheus nor a reloaded page could follow.
 */
export function refuseAnyPortWithRepeat(flags: LiveViewFlags, repeat: number, profile: ResolvedProfile): void {
  if (flags['metrics-port'] === undefined && profile.live?.metricsPort === 0)
    throw new InferbenchError(
      'BAD_USAGE',
      `live.metrics_port 0 with --repeat ${repeat}: each run would listen on another port`,
      {
        hint: 'give a fixed port: --metrics-port 9464, or live: { metrics_port: 9464 } in the profile',
      },
    );
  for (const flag of ['metrics-port', 'dashboard'] as const) {
    const value = flags[flag];
    if (value === undefined || value === '' || parsePortFlag(flag, value) !== 0) continue;
    throw new InferbenchError(
      'BAD_USAGE',
      `--${flag} 0 with --repeat ${repeat}: each run would listen on another port`,
      {
        hint: `give a fixed port (e.g. --${flag} ${examplePort(flag)}): every run serves it in turn`,
      },
    );
  }
}

/**
 * `run --dashboard profile.yaml`: yargs takes the profile for the dashboard's port, then finds no profile
 * ("Not enough non-option arguments"). The error that says so, for run-cli's usage failure; null otherwise.
 */
export function dashboardTookProfile(argv: readonly string[], message: string): InferbenchError | null {
  if (!message.startsWith('Not enough non-option arguments')) return null;
  if (argv.find((arg) => !arg.startsWith('-')) !== 'run') return null;
  const at = argv.indexOf('--dashboard');
  const value = at < 0 ? undefined : argv[at + 1];
  if (value === undefined || value.startsWith('-') || /^\s*\d+\s*$/.test(value)) return null;
  return new InferbenchError(
    'BAD_USAGE',
    `--dashboard took ${JSON.stringify(value)} for its port: run has no profile`,
    {
      hint: `put the profile first (inferbench run ${value} --dashboard) or give the port (--dashboard ${DEFAULT_DASHBOARD_PORT} ${value})`,
    },
  );
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
    // Loaded here, not at import: `inferbench --help` reads this file for dashboardTookProfile alone.
    const { startLiveMetrics } = await import('./live-metrics.js');
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
      // The page, its scripts and its server load only for a run that asked for the dashboard.
      const { startLiveDashboard } = await import('./live-dashboard.js');
      views.push(await startLiveDashboard({ port, profile, baseUrl, ctx }));
    }
    return views;
  } catch (error) {
    await Promise.allSettled(views.map((view) => view.close()));
    throw error;
  }
}
