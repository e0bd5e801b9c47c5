/**
 * The server as the live views show it while a run goes (the dashboard, `--metrics-port`): each endpoint's
 * concepts at its latest scrape. A gauge is what that scrape said; a counter's rate, a hit ratio and a
 * histogram's quantiles are over the interval from the scrape before it to that one (the same reduction as
 * the per-second columns of timeseries.csv, server-window.ts, over that one interval). A scrape older than
 * three intervals is no longer the server's present (the endpoint fails or hangs): the endpoint then has no
 * concepts, rather than the last values it gave shown as if current. Pure and cheap: it reads the last two
 * scrapes of each log, once a tick.
 */
import type { ServerConcept } from '../../metrics/server-concepts.js';
import type { EndpointLog } from '../../client/server-metrics/scraper.js';
import { type ConceptValue, serverWindow } from './server-window.js';

/** One endpoint at its latest scrape. */
export interface ServerLatestEndpoint {
  /** The endpoint's URL, any password in it replaced by *** (as summary.json names it). */
  readonly url: string;
  /** When the latest scrape started, in seconds since the run's start; null: none yet, or too old. */
  readonly atS: number | null;
  /** Its concepts at that scrape (none while atS is null). */
  readonly concepts: Readonly<Partial<Record<ServerConcept, ConceptValue>>>;
  /** Successful and failed scrapes so far. */
  readonly scrapesOk: number;
  readonly failures: number;
}

/** Every endpoint of the run, in the profile's order. */
export type ServerLatest = readonly ServerLatestEndpoint[];

/** Scrapes this many intervals old are no longer shown as the server's present. */
export const STALE_AFTER_INTERVALS = 3;

/** Each endpoint at its latest scrape as of `nowUs` (µs on the run's clock). */
export function serverLatest(logs: readonly EndpointLog[], runStartUs: number, nowUs: number): ServerLatest {
  return logs.map((log) => {
    const last = log.scrapes[log.scrapes.length - 1];
    const counts = { url: log.url, scrapesOk: log.scrapes.length, failures: log.failures.count };
    if (last === undefined || nowUs - last.startUs > STALE_AFTER_INTERVALS * log.spec.intervalMs * 1000)
      return { ...counts, atS: null, concepts: {} };
    const before = log.scrapes[log.scrapes.length - 2];
    // (before, last]: `last` alone inside, `before` the counters' baseline (none after the first scrape).
    const window = serverWindow(
      { ...log, scrapes: before === undefined ? [last] : [before, last] },
      before?.startUs ?? last.startUs - 1,
      last.startUs,
    );
    return { ...counts, atS: Math.round((last.startUs - runStartUs) / 1000) / 1000, concepts: window.concepts };
  });
}
