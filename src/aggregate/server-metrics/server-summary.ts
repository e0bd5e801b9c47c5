/**
 * The scrapes of a run (client/server-metrics/scraper.ts) as its outputs read them: a phase's concepts for
 * summary.json `groups[].server` (with energy per output token), the per-second columns of timeseries.csv,
 * each endpoint's scrape record for `server_metrics`, and the warnings a failing or unrecognised endpoint
 * deserves. Pure: the runner hands it the logs, the run's start and the phases' windows.
 *
 * Several endpoints (an engine and DCGM): a concept comes from the first endpoint, in the profile's order,
 * that has it in the window.
 *
 * A phase's p99 of a gauge and max/p99 of a counter's rate come from the per-second series timeseries.csv
 * shows (the run's seconds, a second = (start + s, start + s + 1]), its first and last second cut at the
 * phase's edges so that only the phase's scrapes count.
 */
import { SERVER_CONCEPT_SPECS, SERVER_CONCEPTS, type ServerConcept } from '../../metrics/server-concepts.js';
import type { EndpointLog } from '../../client/server-metrics/scraper.js';
import type { ServerConceptSummary, ServerEndpointSummary, ServerPhaseSummary } from '../../metrics/server-summary.js';
import { linearPercentile } from '../dialects/dialect-stats.js';
import { type ConceptValue, type ExtraValue, serverWindow } from './server-window.js';

/** A phase's window on the run's clock (µs) and the output tokens of its requests. */
export interface PhaseSpan {
  readonly fromUs: number;
  readonly toUs: number;
  readonly outputTokens: number;
}

const finite = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : x);
const seconds = (us: number, runStartUs: number): number => Math.round((us - runStartUs) / 1000) / 1000;

/** A concept's (or an extra's, by raw name) values in the phase's seconds: a gauge's last, a counter's rate. */
type PerSecond = Partial<Record<string, number[]>>;

/** numpy's linear p99 of `values` (the samples of the phase's seconds); null without any. */
function p99(values: readonly number[] | undefined): number | null {
  if (values === undefined || values.length === 0) return null;
  return finite(linearPercentile(Float64Array.from(values).sort(), 99));
}

function conceptSummary(
  value: ConceptValue,
  endpoint: string,
  seconds: readonly number[] | undefined,
): ServerConceptSummary {
  const sources = [...value.sources];
  switch (value.kind) {
    case 'gauge':
      return {
        kind: 'gauge',
        last: finite(value.last),
        min: finite(value.min),
        max: finite(value.max),
        mean: finite(value.mean),
        p99: p99(seconds),
        sources,
        endpoint,
      };
    case 'counter':
      return {
        kind: 'counter',
        delta: finite(value.delta),
        per_s: finite(value.perS),
        max_per_s: seconds === undefined || seconds.length === 0 ? null : finite(Math.max(...seconds)),
        p99_per_s: p99(seconds),
        sources,
        endpoint,
      };
    case 'ratio':
      return {
        kind: 'ratio',
        value: finite(value.value),
        hits: finite(value.hits),
        queries: finite(value.queries),
        sources,
        endpoint,
      };
    case 'histogram':
      return {
        kind: 'histogram',
        count: finite(value.count),
        mean: finite(value.mean),
        p50: finite(value.p50),
        p90: finite(value.p90),
        p99: finite(value.p99),
        sources,
        endpoint,
      };
  }
}

type FromEndpoint<T> = T & { endpoint: string };

/**
 * Every concept over (fromUs, toUs], each from the first endpoint that has it; with `extras`, the
 * `metrics:` extras likewise (by raw name).
 */
function conceptsOver(
  logs: readonly EndpointLog[],
  fromUs: number,
  toUs: number,
  extras = false,
): {
  concepts: Partial<Record<ServerConcept, FromEndpoint<ConceptValue>>>;
  extras: Record<string, FromEndpoint<ExtraValue>>;
  scrapes: number;
  failures: number;
} {
  const concepts: Partial<Record<ServerConcept, FromEndpoint<ConceptValue>>> = {};
  const extraValues: Record<string, FromEndpoint<ExtraValue>> = {};
  let scrapes = 0;
  let failures = 0;
  for (const log of logs) {
    const window = serverWindow(log, fromUs, toUs, { extras });
    scrapes += window.scrapes;
    failures += window.failures;
    for (const concept of SERVER_CONCEPTS) {
      const value = window.concepts[concept];
      if (value !== undefined && concepts[concept] === undefined) concepts[concept] = { ...value, endpoint: log.url };
    }
    for (const [name, value] of Object.entries(window.extras))
      if (extraValues[name] === undefined) extraValues[name] = { ...value, endpoint: log.url };
  }
  return { concepts, extras: extraValues, scrapes, failures };
}

/** Some endpoint keeps `metrics:` extras (their reading costs a pass over the scrapes' samples). */
const keepsExtras = (logs: readonly EndpointLog[]): boolean => logs.some((log) => log.spec.metrics.length > 0);

/** The per-second sample of a value: a gauge's last, a counter's rate; null for the other kinds. */
function sampleOf(value: ConceptValue | undefined): number | null {
  const sample = value?.kind === 'gauge' ? value.last : value?.kind === 'counter' ? value.perS : null;
  return sample === null || !Number.isFinite(sample) ? null : sample;
}

/** Joules over the window: energy_j's increase, else power_w's mean times the window; null without either. */
function energyJ(concepts: Partial<Record<ServerConcept, ConceptValue>>, spanS: number): number | null {
  const energy = concepts.energy_j;
  if (energy?.kind === 'counter' && Number.isFinite(energy.delta)) return energy.delta;
  const power = concepts.power_w;
  if (power?.kind === 'gauge' && Number.isFinite(power.mean)) return power.mean * spanS;
  return null;
}

/**
 * Each gauge's last value and each counter's rate per second of the run within (fromUs, toUs]: the values
 * of timeseries.csv's rows, the first and last second cut at the window's edges.
 */
function perSecondOf(
  logs: readonly EndpointLog[],
  fromUs: number,
  toUs: number,
  runStartUs: number,
): { concepts: PerSecond; extras: PerSecond } {
  const out = { concepts: {} as PerSecond, extras: {} as PerSecond };
  const push = (into: PerSecond, key: string, sample: number | null): void => {
    if (sample === null) return;
    const values = into[key] ?? [];
    values.push(sample);
    into[key] = values;
  };
  const withExtras = keepsExtras(logs);
  const first = Math.floor((fromUs - runStartUs) / 1e6);
  for (let s = first; runStartUs + s * 1e6 < toUs; s++) {
    const start = Math.max(fromUs, runStartUs + s * 1e6);
    const end = Math.min(toUs, runStartUs + (s + 1) * 1e6);
    if (end <= start) continue;
    const { concepts, extras } = conceptsOver(logs, start, end, withExtras);
    for (const concept of SERVER_CONCEPTS) push(out.concepts, concept, sampleOf(concepts[concept]));
    for (const [name, value] of Object.entries(extras)) push(out.extras, name, sampleOf(value));
  }
  return out;
}

/**
 * The server over one phase: its concepts, with the raw names, the joules and the energy per output token.
 * `tokensAreAShare`: this run is one shard of several, so its output tokens are a share of those the server
 * served while it measured the whole deployment's joules: no energy per token (merge computes it).
 */
export function serverPhase(
  logs: readonly EndpointLog[],
  span: PhaseSpan,
  runStartUs: number,
  tokensAreAShare = false,
): ServerPhaseSummary {
  const withExtras = keepsExtras(logs);
  const { concepts, extras, scrapes, failures } = conceptsOver(logs, span.fromUs, span.toUs, withExtras);
  const perSecond = perSecondOf(logs, span.fromUs, span.toUs, runStartUs);
  const out: Record<string, ServerConceptSummary> = {};
  for (const concept of SERVER_CONCEPTS) {
    const value = concepts[concept];
    if (value !== undefined) out[concept] = conceptSummary(value, value.endpoint, perSecond.concepts[concept]);
  }
  const extraOut: Record<string, ServerConceptSummary> = {};
  for (const [name, value] of Object.entries(extras))
    extraOut[name] = conceptSummary(value, value.endpoint, perSecond.extras[name]);
  const joules = energyJ(concepts, (span.toUs - span.fromUs) / 1e6);
  return {
    from_s: seconds(span.fromUs, runStartUs),
    to_s: seconds(span.toUs, runStartUs),
    scrapes,
    failures,
    output_tokens: span.outputTokens,
    concepts: out,
    ...(withExtras ? { extras: extraOut } : {}),
    energy_j: joules,
    energy_per_output_token_j:
      joules === null || span.outputTokens <= 0 || tokensAreAShare ? null : joules / span.outputTokens,
  };
}

/** The timeseries.csv column prefix of a concept: `server_` once (`server_ttft`, `server_running`). */
const prefix = (concept: ServerConcept): string => (concept.startsWith('server_') ? concept : `server_${concept}`);

/**
 * The columns of a concept in one second: a gauge's last value and its max; a counter's rate for the
 * `*_per_s` concepts, else its increase (preemptions, energy_j in J); a ratio's value; a histogram's
 * p50/p90/p99 in ms.
 */
function conceptColumns(concept: ServerConcept, value: ConceptValue | undefined): [string, number | null][] {
  const name = prefix(concept);
  const kind = value?.kind ?? SERVER_CONCEPT_SPECS[concept].kind;
  if (kind === 'gauge') {
    const gauge = value?.kind === 'gauge' ? value : null;
    return [
      [name, finite(gauge?.last ?? null)],
      [`${name}_max`, finite(gauge?.max ?? null)],
    ];
  }
  if (kind === 'counter') {
    const counter = value?.kind === 'counter' ? value : null;
    return [[name, finite((concept.endsWith('_per_s') ? counter?.perS : counter?.delta) ?? null)]];
  }
  if (kind === 'ratio') return [[name, finite(value?.kind === 'ratio' ? value.value : null)]];
  const histogram = value?.kind === 'histogram' ? value : null;
  return [
    [`${name}_p50_ms`, finite(histogram?.p50 ?? null)],
    [`${name}_p90_ms`, finite(histogram?.p90 ?? null)],
    [`${name}_p99_ms`, finite(histogram?.p99 ?? null)],
  ];
}

/**
 * The columns of a `metrics:` extra in one second, `server_extra_<raw name>` (its kind is the same in
 * every second): a gauge's last and `_max`, a counter's `_per_s`, a histogram's `_p50`, `_p90`, `_p99` in
 * the series' own unit.
 */
function extraColumns(
  name: string,
  kind: ExtraValue['kind'],
  value: ExtraValue | undefined,
): [string, number | null][] {
  const column = `server_extra_${name}`;
  if (kind === 'gauge') {
    const gauge = value?.kind === 'gauge' ? value : null;
    return [
      [column, finite(gauge?.last ?? null)],
      [`${column}_max`, finite(gauge?.max ?? null)],
    ];
  }
  if (kind === 'counter') return [[`${column}_per_s`, finite(value?.kind === 'counter' ? value.perS : null)]];
  const histogram = value?.kind === 'histogram' ? value : null;
  return [
    [`${column}_p50`, finite(histogram?.p50 ?? null)],
    [`${column}_p90`, finite(histogram?.p90 ?? null)],
    [`${column}_p99`, finite(histogram?.p99 ?? null)],
  ];
}

/**
 * timeseries.csv's server columns for seconds 0..count-1 of the run (second s: (start + s, start + s + 1]),
 * the same columns in every row: those of the concepts some second had, then those of the `metrics:`
 * extras (by name). Empty when nothing was scraped.
 */
export function serverSeconds(
  logs: readonly EndpointLog[],
  runStartUs: number,
  count: number,
): Readonly<Record<string, number | null>>[] {
  const withExtras = keepsExtras(logs);
  const perSecond = Array.from({ length: count }, (_, s) =>
    conceptsOver(logs, runStartUs + s * 1e6, runStartUs + (s + 1) * 1e6, withExtras),
  );
  const seen = SERVER_CONCEPTS.filter((concept) => perSecond.some((second) => second.concepts[concept] !== undefined));
  const extraKinds = new Map<string, ExtraValue['kind']>();
  for (const second of perSecond)
    for (const [name, value] of Object.entries(second.extras))
      if (!extraKinds.has(name)) extraKinds.set(name, value.kind);
  const extras = [...extraKinds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (seen.length === 0 && extras.length === 0) return [];
  return perSecond.map((second) =>
    Object.fromEntries([
      ...seen.flatMap((concept) => conceptColumns(concept, second.concepts[concept])),
      ...extras.flatMap(([name, kind]) => extraColumns(name, kind, second.extras[name])),
    ]),
  );
}

/** summary.json `server_metrics`: each endpoint and how its scrapes went. */
export function serverEndpoints(logs: readonly EndpointLog[], runStartUs: number): ServerEndpointSummary[] {
  return logs.map((log) => ({
    url: log.url,
    preset: log.spec.preset,
    engine: log.engine,
    interval_ms: log.spec.intervalMs,
    attempts: log.attempts,
    scrapes_ok: log.scrapes.length,
    skipped: log.skipped,
    failures: log.failures.count,
    failures_by_kind: Object.fromEntries(Object.entries(log.failures.byKind).filter(([, n]) => n > 0)),
    last_error:
      log.failures.last === null
        ? null
        : {
            kind: log.failures.last.kind,
            message: log.failures.last.message,
            at_s: seconds(log.failures.last.startUs, runStartUs),
          },
    slowest_ms: slowestMs(log),
  }));
}

/** The longest successful scrape of `log`, ms (rounded); null without one. */
function slowestMs(log: EndpointLog): number | null {
  let slowestUs = -1;
  for (const scrape of log.scrapes) slowestUs = Math.max(slowestUs, scrape.endUs - scrape.startUs);
  return slowestUs < 0 ? null : Math.round(slowestUs / 1000);
}

/**
 * The warning of an endpoint whose ticks were skipped (a scrape still under way at the next: the endpoint
 * answers slower than its interval); `overSteps`: the counts are a capacity search's, summed over its steps.
 */
export function skippedWarning(
  endpoint: Pick<ServerEndpointSummary, 'url' | 'skipped' | 'attempts' | 'interval_ms' | 'slowest_ms'>,
  overSteps = false,
): string {
  const slowest =
    endpoint.slowest_ms === null || endpoint.slowest_ms === undefined || endpoint.slowest_ms <= 0
      ? ''
      : `; answers took up to ${endpoint.slowest_ms} ms`;
  const where = overSteps ? " over the search's steps" : '';
  return `server metrics ${endpoint.url}: ${endpoint.skipped} scrape ticks skipped${where} (${endpoint.attempts} scrapes made): the scrape before was still under way (interval ${endpoint.interval_ms} ms${slowest}); set a longer interval`;
}

/**
 * A warning per endpoint whose scrapes failed, whose ticks were skipped (a scrape still under way: the
 * interval is shorter than its answers), or whose `auto` recognised no engine (never a key: the URL is redacted).
 */
export function serverWarnings(logs: readonly EndpointLog[]): string[] {
  const warnings: string[] = [];
  for (const log of logs) {
    const { failures } = log;
    if (failures.count > 0) {
      const kinds = Object.entries(failures.byKind)
        .filter(([, n]) => n > 0)
        .map(([kind, n]) => `${n} ${kind}`)
        .join(', ');
      const last = failures.last === null ? '' : `; last: ${failures.last.kind}: ${failures.last.message}`;
      warnings.push(
        `server metrics ${log.url}: ${failures.count} of ${log.attempts} scrapes failed (${kinds})${last}; the client's numbers are unaffected`,
      );
    }
    if (log.skipped > 0)
      warnings.push(
        skippedWarning({
          url: log.url,
          skipped: log.skipped,
          attempts: log.attempts,
          interval_ms: log.spec.intervalMs,
          slowest_ms: slowestMs(log),
        }),
      );
    if (log.engine === null && log.scrapes.length > 0)
      warnings.push(
        `server metrics ${log.url}: preset auto recognised no engine in its names; set preset: (vllm, sglang, tgi, llamacpp, trtllm, dynamo, triton, dcgm) or check the URL`,
      );
    else if (log.scrapes.length === 0 && failures.count === 0)
      warnings.push(`server metrics ${log.url}: no scrape was made (the run ended first)`);
  }
  return warnings;
}
