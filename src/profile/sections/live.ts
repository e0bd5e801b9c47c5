/**
 * The `live:` section of a profile: what the run shows while it goes, e.g. Prometheus' /metrics
 * (`live: { metrics_port: 9464 }`). Its schema and its resolution (linger in ms); `--metrics-port` and
 * `--metrics-host` override it (cli/live-metrics.ts).
 */
import { z } from 'zod';
import { parseDurationMs } from '../../util/duration.js';
import { duration } from '../field-kinds.js';
import type { LiveSpec } from '../resolved-profile.js';

export const liveSchema = z
  .strictObject({
    metrics_port: z.number().int().min(0).max(65_535).optional().meta({
      description:
        'Serve Prometheus metrics at http://metrics_host:PORT/metrics during the run (0: any free port). Omitted: no /metrics unless --metrics-port.',
    }),
    metrics_host: z.string().min(1).optional().meta({
      description: 'Address /metrics listens on (default 127.0.0.1; 0.0.0.0 in a pod that Prometheus scrapes).',
    }),
    metrics_linger: duration.optional().meta({
      description:
        'After the run, keep /metrics up until it is scraped once more (so the final values are seen), at most this long (default 15s; 0: close at once).',
    }),
  })
  .meta({ id: 'live', description: 'Live views of a run: { metrics_port: 9464, metrics_host: 127.0.0.1 }.' });

export type LiveInput = z.infer<typeof liveSchema>;

/** Long enough for two scrapes at Prometheus' usual 5-10 s interval after the run ends. */
export const DEFAULT_METRICS_LINGER_MS = 15_000;

/** `{ live }` when the profile sets it, else nothing (profiles without it resolve as before). */
export function resolveLive(input: LiveInput | undefined): { live?: LiveSpec } {
  if (input === undefined) return {};
  return {
    live: {
      metricsPort: input.metrics_port ?? null,
      metricsHost: input.metrics_host ?? null,
      metricsLingerMs:
        input.metrics_linger === undefined
          ? DEFAULT_METRICS_LINGER_MS
          : (parseDurationMs(input.metrics_linger) ?? DEFAULT_METRICS_LINGER_MS),
    },
  };
}
