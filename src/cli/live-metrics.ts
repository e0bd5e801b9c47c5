/**
 * `inferbench run --metrics-port PORT` (or the profile's `live.metrics_port`): Prometheus' /metrics for the
 * run, served while it goes from the live exporter (aggregate/prometheus/), and kept up after the end until
 * it is scraped once more (at most `live.metrics_linger`), so Prometheus sees the final values. A port that
 * cannot be had is a usage error before any request is sent.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { EventLoopDelaySample } from '../aggregate/prometheus/live-metrics-exporter.js';
import { startLivePageServer, type LivePageServer, type LiveRoute } from '../emulator/http/live-page-server.js';
import { InferbenchError } from '../errors.js';
import type { RunSummary } from '../metrics/run-summary.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import { DEFAULT_METRICS_LINGER_MS } from '../profile/sections/live.js';
import type { ShardSpec } from '../schedule/shard.js';
import type { CliContext } from './context.js';
import type { LiveView } from './live-view.js';
import { RecentText } from './recent-text.js';
import { ScrapeWaiter } from './scrape-waiter.js';
import { inferbenchVersion } from './version.js';

export interface LiveMetricsOptions {
  /** `--metrics-port`; null: the profile's `live.metrics_port`, else no /metrics. */
  readonly port: number | null;
  /** `--metrics-host`; null: the profile's, else 127.0.0.1. */
  readonly host: string | null;
  readonly profile: ResolvedProfile;
  readonly shard: ShardSpec | null;
  readonly ctx: CliContext;
}

interface MetricsSettings {
  readonly port: number;
  readonly host: string;
  readonly lingerMs: number;
}

/** Flags over the profile's `live:`; null when neither asks for /metrics. */
function metricsSettings(options: LiveMetricsOptions): MetricsSettings | null {
  const live = options.profile.live;
  const port = options.port ?? live?.metricsPort ?? null;
  if (port === null) {
    if (options.host !== null)
      throw new InferbenchError('BAD_USAGE', '--metrics-host needs a port to serve /metrics on', {
        hint: 'add --metrics-port PORT (e.g. 9464), or live: { metrics_port: 9464 } to the profile',
      });
    return null;
  }
  return {
    port,
    host: options.host ?? live?.metricsHost ?? '127.0.0.1',
    lingerMs: live?.metricsLingerMs ?? DEFAULT_METRICS_LINGER_MS,
  };
}

/** A /metrics body this recent is served again (Prometheus scrapes every second at most). */
const REUSE_METRICS_MS = 100;

export async function startLiveMetrics(options: LiveMetricsOptions): Promise<LiveView | null> {
  const settings = metricsSettings(options);
  if (settings === null) return null;
  const { shard, ctx } = options;
  // The exporter and prom-client load only for a run that serves /metrics (most runs do not).
  const { LiveMetricsExporter } = await import('../aggregate/prometheus/live-metrics-exporter.js');
  const exporter = new LiveMetricsExporter({
    shard: shard === null ? '' : `${shard.index}/${shard.count}`,
    profile: options.profile.name,
    version: inferbenchVersion(),
  });
  const lastScrape = new ScrapeWaiter();
  const text = new RecentText(() => exporter.metrics(), REUSE_METRICS_MS);
  const server = await listen(settings, metricsRoutes(exporter.contentType, text, lastScrape, options.profile.name));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const url = `${server.url}/metrics`;
  let closed = false;
  return {
    description: `metrics: ${url} (Prometheus)`,
    attach: (numbers) => exporter.attach(numbers),
    events: {
      onScenarioStart: (_scenario, groups) => exporter.groupsStarting(groups),
      onRecord: (record, group, values) => exporter.record(record, group, values),
      onTick: (tick) => exporter.tick(tick.snapshot, takeDelaySample(delay), tick.server?.()),
    },
    async finish(summary: RunSummary | null): Promise<void> {
      exporter.end(summary === null ? null : summary.groups.reduce((sum, group) => sum + group.requests.dropped, 0));
      // Every body made from now on shows the final values.
      text.forget();
      lastScrape.arm();
      if (settings.lingerMs <= 0 || ctx.interrupt.aborted) return;
      const seconds = settings.lingerMs / 1000;
      ctx.stderr.write(
        `inferbench: metrics: keeping ${url} up until it is scraped once more, at most ${seconds}s (live.metrics_linger; Ctrl-C ends it)\n`,
      );
      const scraped = await lastScrape.wait(settings.lingerMs, ctx.interrupt);
      if (!scraped) ctx.stderr.write(`inferbench: metrics: not scraped within ${seconds}s after the run; closing\n`);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      delay.disable();
      lastScrape.cancel();
      await server.close();
    },
  };
}

function metricsRoutes(
  contentType: string,
  text: RecentText<Promise<string>>,
  lastScrape: ScrapeWaiter,
  profile: string,
) {
  return new Map<string, LiveRoute>([
    [
      '/metrics',
      {
        kind: 'text',
        contentType,
        body: () => {
          lastScrape.made();
          return text.get();
        },
        onSent: () => lastScrape.scraped(),
      },
    ],
    [
      '/',
      {
        kind: 'text',
        contentType: 'text/plain; charset=utf-8',
        body: () => `inferbench run ${profile}: Prometheus metrics at /metrics\n`,
      },
    ],
  ]);
}

/** The last second's event-loop delay (the monitor counts in ns), then a fresh second. */
function takeDelaySample(delay: IntervalHistogram): EventLoopDelaySample | null {
  if (delay.count === 0) return null;
  const sample = { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
  delay.reset();
  return sample;
}

/** Starts the server; a port it cannot have is a usage error naming the flag and what to do. */
async function listen(settings: MetricsSettings, routes: Map<string, LiveRoute>): Promise<LivePageServer> {
  try {
    return await startLivePageServer({ host: settings.host, port: settings.port, routes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hints: Record<string, string> = {
      EADDRINUSE:
        'the port is taken (another run or exporter?): pick another with --metrics-port, or --metrics-port 0 for any free port',
      EACCES: 'ports below 1024 need privileges: pick a port above 1024, e.g. --metrics-port 9464',
      EADDRNOTAVAIL: 'this machine has no such address: use --metrics-host 127.0.0.1 or 0.0.0.0',
      ENOTFOUND: 'the host name does not resolve: use --metrics-host 127.0.0.1 or 0.0.0.0',
    };
    throw new InferbenchError(
      'BAD_USAGE',
      `cannot serve /metrics on ${settings.host}:${settings.port}: ${code ?? (error as Error).message}`,
      { cause: error, hint: code === undefined ? undefined : hints[code] },
    );
  }
}
