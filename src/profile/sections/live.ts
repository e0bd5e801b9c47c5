/**
 * The `live:` block of a profile: what the run shows while it goes, e.g. Prometheus' /metrics
 * (`live: { metrics_port: 9464 }`). Built from the profile schema's own duration schema (passed in, so this
 * file never imports profile-schema.ts). Resolved in resolve-live.ts; `--metrics-port` and
 * `--metrics-host` override it.
 */
import { z } from 'zod';

export function liveSchema<D extends z.ZodType>(duration: D) {
  return z
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
}
