/** `live:` as written -> LiveSpec (linger in ms); nothing when the profile has no `live:` block. */
import { parseDurationMs } from '../util/duration.js';
import type { ProfileInput } from './profile-schema.js';
import type { LiveSpec } from './resolved-profile.js';

/** Long enough for two scrapes at Prometheus' usual 5-10 s interval after the run ends. */
export const DEFAULT_METRICS_LINGER_MS = 15_000;

/** `{ live }` when the profile sets it, else nothing (profiles without it resolve as before). */
export function resolveLive(input: ProfileInput['live']): { live?: LiveSpec } {
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
