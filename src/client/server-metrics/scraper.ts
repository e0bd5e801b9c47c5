/**
 * Scrapes the target's own Prometheus endpoints beside a run (target.server_metrics): per endpoint, one GET
 * per interval on its own timer of the run's clock, scheduled in absolute time (start + k x interval),
 * never two at once (a tick that finds the last scrape still going is skipped and counted), each given up
 * after its timeout. Off the request path: it shares nothing with the run's connections, and nothing it
 * meets (a hang, HTML, 50 MB, a refused connection, a malformed body) is thrown: each failure is counted by
 * kind with the last one kept, and the run goes on. Successful scrapes are kept, stamped with the clock
 * (µs, the unit of RequestRecord), with only the series their preset and `metrics:` name and `labels:`
 * select; aggregate/server-metrics/server-window.ts reduces them per window.
 *
 * Usage (the runner): `const scraping = startServerMetrics(profile.target.serverMetrics ?? [], { clock, env })`
 * before the first request; `await scraping.stop()` after the last, which returns every endpoint's log.
 */
import type { ServerMetricsSpec } from '../../profile/resolved-profile.js';
import { regexBody } from '../../profile/sections/server-metrics.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { detectPreset, ENGINE_PRESETS, presetSampleNames, type EngineName } from './engine-presets.js';
import { type FamilyTypes, parseExposition, sampleNames, type Sample } from './exposition.js';
import {
  createEndpointGetter,
  DEFAULT_SCRAPE_LIMITS,
  SCRAPE_ERROR_KINDS,
  type EndpointGetter,
  type ScrapeErrorKind,
  type ScrapeLimits,
} from './scrape-endpoint.js';
import { hidePassword } from '../../util/hide-password.js';

/** One successful scrape: the kept series, stamped with the run's clock when the GET started and ended. */
export interface ServerScrape {
  readonly startUs: number;
  readonly endUs: number;
  /** Bytes of the body. */
  readonly bytes: number;
  readonly samples: readonly Sample[];
}

export interface ScrapeFailure {
  readonly startUs: number;
  readonly endUs: number;
  readonly kind: ScrapeErrorKind;
  /** Without the key (scrubbed). */
  readonly message: string;
}

/** Everything one endpoint gave during the run; read it live or from stop(). */
export interface EndpointLog {
  /** The endpoint's URL, any password in it replaced by ***. */
  readonly url: string;
  readonly spec: ServerMetricsSpec;
  /** The engine whose names are read: the preset, or what `auto` recognised (null: not yet, or none). */
  engine: EngineName | null;
  /** Successful scrapes in time order. */
  readonly scrapes: ServerScrape[];
  /** GETs started. */
  attempts: number;
  /** Ticks skipped because the previous scrape was still going. */
  skipped: number;
  /**
   * The TYPE each family declared in the latest successful scrape (how a `metrics:` extra is reduced);
   * absent before one, or in a log built without it.
   */
  types?: FamilyTypes;
  readonly failures: {
    count: number;
    readonly byKind: Record<ScrapeErrorKind, number>;
    last: ScrapeFailure | null;
    /** When each failed scrape started, and why (for the failures of a window). */
    readonly at: { readonly startUs: number; readonly kind: ScrapeErrorKind }[];
  };
}

export interface ServerMetricsOptions {
  readonly clock: Clock;
  /** Where api_key_env is read (the CLI passes process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly limits?: ScrapeLimits;
  /** Opens the getter of an endpoint (default: HTTP through undici); a seam for tests of the schedule. */
  readonly openGetter?: (spec: ServerMetricsSpec, apiKey: string | null, clock: Clock) => EndpointGetter;
}

export interface ServerMetricsSession {
  /** The endpoints' logs so far (live objects: they grow until stop). */
  readonly logs: readonly EndpointLog[];
  /**
   * Stops every timer, lets a scrape under way end, takes one last scrape of each endpoint (so the window
   * reaches past the last request), closes the connections; the final logs.
   */
  stop(): Promise<readonly EndpointLog[]>;
}

/** A histogram's or summary's sample names beside its family's (`x_bucket`, `x_sum`, `x_count`). */
const FAMILY_PARTS = /_(?:bucket|sum|count)$/;

/**
 * Which metric names are kept for an engine: its preset's names and the extra names of `metrics:` (an exact
 * name also keeps the `_bucket`, `_sum` and `_count` of a histogram or summary it names).
 */
function nameFilter(spec: ServerMetricsSpec, engine: EngineName | null): (name: string) => boolean {
  const names = engine === null ? new Set<string>() : presetSampleNames(ENGINE_PRESETS[engine]);
  const exact = new Set(spec.metrics.filter((m) => regexBody(m) === null));
  const patterns = spec.metrics.flatMap((m) => {
    const body = regexBody(m);
    return body === null ? [] : [new RegExp(body)];
  });
  return (name) =>
    names.has(name) ||
    exact.has(name) ||
    (FAMILY_PARTS.test(name) && exact.has(name.replace(FAMILY_PARTS, ''))) ||
    patterns.some((p) => p.test(name));
}

/** Which series pass `labels:`: of those that have a label, the ones whose value is wanted. */
function labelFilter(spec: ServerMetricsSpec): (sample: Sample) => boolean {
  const labels = Object.entries(spec.labels).map(([key, text]): [string, string | RegExp] => {
    const body = regexBody(text);
    return [key, body === null ? text : new RegExp(body)];
  });
  // A series without the label is not of one model (or GPU) or another: kept (e.g. process metrics).
  return (sample) =>
    labels.every(([key, want]) => {
      const value = sample.labels[key];
      return value === undefined || (typeof want === 'string' ? value === want : want.test(value));
    });
}

/** Starts scraping every endpoint (none: a session that does nothing). */
export function startServerMetrics(
  endpoints: readonly ServerMetricsSpec[],
  options: ServerMetricsOptions,
): ServerMetricsSession {
  const { clock } = options;
  const limits = options.limits ?? DEFAULT_SCRAPE_LIMITS;
  const open =
    options.openGetter ??
    ((spec: ServerMetricsSpec, apiKey: string | null, c: Clock) =>
      createEndpointGetter({ url: spec.url, headers: spec.headers, apiKey }, c, limits));
  /** stop() was called: no more ticks (its final scrapes still count). */
  let stopping = false;
  /** stop() is done: nothing more is recorded. */
  let stopped = false;
  const runs = endpoints.map((spec) => {
    const apiKey = spec.apiKeyEnv === null ? null : (options.env[spec.apiKeyEnv] ?? null);
    const log: EndpointLog = {
      url: hidePassword(spec.url),
      spec,
      engine: spec.preset === 'auto' ? null : spec.preset,
      scrapes: [],
      attempts: 0,
      skipped: 0,
      failures: {
        count: 0,
        byKind: Object.fromEntries(SCRAPE_ERROR_KINDS.map((k) => [k, 0])) as Record<ScrapeErrorKind, number>,
        last: null,
        at: [],
      },
    };
    const getter = open(spec, apiKey, clock);
    let keep = spec.preset === 'auto' ? null : nameFilter(spec, log.engine);
    const labelsPass = labelFilter(spec);
    let inFlight: Promise<void> | null = null;
    let timer: TimerHandle | null = null;
    const originMs = clock.nowMs();
    let tickIndex = 0;

    const scrape = async (): Promise<void> => {
      const startUs = clock.nowUs();
      log.attempts++;
      const outcome = await getter.get(spec.timeoutMs);
      const endUs = clock.nowUs();
      if (stopped) return;
      if (outcome.ok && keep === null) {
        // auto: the first scrape that answers names the engine, once (from its names alone).
        log.engine = detectPreset(sampleNames(outcome.text));
        keep = nameFilter(spec, log.engine);
      }
      const parsed = outcome.ok ? parseExposition(outcome.text, limits.maxSeries, keep ?? (() => false)) : outcome;
      if (!parsed.ok) {
        log.failures.count++;
        log.failures.byKind[parsed.kind]++;
        log.failures.last = { startUs, endUs, kind: parsed.kind, message: parsed.message };
        log.failures.at.push({ startUs, kind: parsed.kind });
        return;
      }
      log.types = parsed.types;
      log.scrapes.push({ startUs, endUs, bytes: outcome.bytes, samples: parsed.samples.filter(labelsPass) });
    };

    const tick = (): void => {
      timer = null;
      if (stopping) return;
      if (inFlight === null) {
        inFlight = scrape().finally(() => {
          inFlight = null;
        });
      } else log.skipped++;
      tickIndex++;
      // Absolute time: a late tick does not push the later ones back.
      const dueMs = originMs + tickIndex * spec.intervalMs;
      timer = clock.setTimer(tick, Math.max(0, dueMs - clock.nowMs()));
    };
    timer = clock.setTimer(tick, 0);

    return {
      log,
      stop: async () => {
        if (timer !== null) clock.clearTimer(timer);
        timer = null;
        // The scrape under way ends as it would have; then one last scrape, so the server's counters reach
        // past the last request (each bounded by the endpoint's timeout).
        await inFlight;
        await scrape();
        await getter.close();
      },
    };
  });
  return {
    logs: runs.map((run) => run.log),
    stop: async () => {
      if (stopped) return runs.map((run) => run.log);
      stopping = true;
      await Promise.all(runs.map((run) => run.stop()));
      stopped = true;
      return runs.map((run) => run.log);
    },
  };
}
