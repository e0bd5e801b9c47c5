/**
 * The server's concepts over a window of a run, from the scrapes of one endpoint (client/server-metrics/):
 * gauges as last, min, max and mean of the scrapes in the window (label sets combined as the preset says:
 * summed for counts, the max for a usage ratio, the mean for a GPU's use); counters as the increase and
 * the rate per second between the last scrape at or before the window's start and the last one at or before
 * its end (summed over consecutive scrapes, so a counter reset counts from zero, as Prometheus' rate()
 * does; label sets summed); a hit ratio from the two counters' increases; histograms as per-window
 * quantiles from the buckets' increases (label sets summed per `le`, interpolated within a bucket as
 * Prometheus' histogram_quantile() does). Every concept names the raw series it came from.
 *
 * A scrape's time is when its GET started (`startUs`): the server computed its answer right after. A
 * window is (fromUs, toUs]: a scrape at exactly fromUs belongs to the window before (and is this window's
 * counter baseline).
 */
import {
  ENGINE_PRESETS,
  presetSampleNames,
  type ConceptRule,
  type ConceptSource,
  type EngineName,
} from '../../client/server-metrics/engine-presets.js';
import type { ServerConcept } from '../../metrics/server-concepts.js';
import type { Sample } from '../../client/server-metrics/exposition.js';
import type { EndpointLog, ServerScrape } from '../../client/server-metrics/scraper.js';

export type ConceptValue =
  | {
      readonly kind: 'gauge';
      readonly last: number;
      readonly min: number;
      readonly max: number;
      readonly mean: number;
      readonly sources: readonly string[];
    }
  | { readonly kind: 'counter'; readonly delta: number; readonly perS: number; readonly sources: readonly string[] }
  | {
      readonly kind: 'ratio';
      /** hits / queries over the window; null when nothing was queried. */
      readonly value: number | null;
      readonly hits: number;
      readonly queries: number;
      readonly sources: readonly string[];
    }
  | {
      readonly kind: 'histogram';
      /** Observations in the window, and their quantiles and mean in the concept's unit (null when none). */
      readonly count: number;
      readonly mean: number | null;
      readonly p50: number | null;
      readonly p90: number | null;
      readonly p99: number | null;
      readonly sources: readonly string[];
    };

/**
 * A series the profile's `metrics:` kept beside the preset, reduced as its family's TYPE says (label sets
 * summed; in the series' own unit, never scaled): a gauge (or an untyped name not ending in `_total`) as a
 * gauge, a counter (or an untyped `_total`) as a counter, a histogram once under its family's name from its
 * buckets; a summary's `_sum` and `_count` as counters (its quantiles are the engine's own: left out).
 */
export type ExtraValue = Exclude<ConceptValue, { kind: 'ratio' }>;

export interface ServerWindow {
  readonly url: string;
  readonly engine: EngineName | null;
  readonly fromUs: number;
  readonly toUs: number;
  /** Successful scrapes inside the window. */
  readonly scrapes: number;
  /** Failed scrapes that started inside the window. */
  readonly failures: number;
  readonly concepts: Readonly<Partial<Record<ServerConcept, ConceptValue>>>;
  readonly extras: Readonly<Record<string, ExtraValue>>;
}

const labelKey = (labels: Readonly<Record<string, string>>, omit?: string): string =>
  Object.keys(labels)
    .filter((k) => k !== omit)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',');

const describe = (source: ConceptSource, suffix = ''): string =>
  source.match === undefined
    ? `${source.name}${suffix}`
    : `${source.name}${suffix}{${Object.entries(source.match)
        .map(([k, v]) => `${k}="${v}"`)
        .join(',')}}`;

function matches(sample: Sample, source: ConceptSource, name = source.name): boolean {
  if (sample.name !== name) return false;
  if (source.match === undefined) return true;
  return Object.entries(source.match).every(([k, v]) => sample.labels[k] === v);
}

function seriesOf(scrape: ServerScrape, source: ConceptSource, name?: string): Map<string, number> {
  const scale = source.scale ?? 1;
  const out = new Map<string, number>();
  for (const sample of scrape.samples)
    if (matches(sample, source, name)) out.set(labelKey(sample.labels), sample.value * scale);
  return out;
}

/** The first alternative any of `scrapes` has (engines renamed series; never two at once). */
function pickSource(
  scrapes: readonly ServerScrape[],
  sources: readonly ConceptSource[],
  suffix = '',
): ConceptSource | null {
  return (
    sources.find((source) =>
      scrapes.some((s) => s.samples.some((x) => matches(x, source, `${source.name}${suffix}`))),
    ) ?? null
  );
}

/** The increase of every series from `from` to `to` (a decrease is a reset: counted from zero). */
function increases(
  from: ReadonlyMap<string, number>,
  to: ReadonlyMap<string, number>,
  into: Map<string, number>,
  keyOf: (key: string) => string = (key) => key,
): void {
  for (const [key, value] of to) {
    const before = from.get(key) ?? 0;
    const inc = value >= before ? value - before : value;
    const k = keyOf(key);
    into.set(k, (into.get(k) ?? 0) + inc);
  }
}

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const v of values) total += v;
  return total;
};

function combine(values: readonly number[], how: 'sum' | 'max' | 'mean'): number {
  if (how === 'sum') return sum(values);
  if (how === 'max') return Math.max(...values);
  return sum(values) / values.length;
}

interface Span {
  /** Scrapes inside the window. */
  readonly inside: readonly ServerScrape[];
  /** The counter baseline (the last scrape at or before fromUs, else the first inside) and what follows. */
  readonly chain: readonly ServerScrape[];
}

function gaugeOf(rule: Extract<ConceptRule, { kind: 'gauge' }>, span: Span): ConceptValue | undefined {
  const source = pickSource(span.inside, rule.sources);
  if (source === null) return undefined;
  const values = span.inside
    .map((scrape) => [...seriesOf(scrape, source).values()])
    .filter((v) => v.length > 0)
    .map((v) => combine(v, rule.combine));
  if (values.length === 0) return undefined;
  return {
    kind: 'gauge',
    last: values[values.length - 1]!,
    min: Math.min(...values),
    max: Math.max(...values),
    mean: sum(values) / values.length,
    sources: [describe(source)],
  };
}

/** The summed increase of a source over the chain, and the seconds it spans; null without two scrapes. */
function counterIncrease(source: ConceptSource, chain: readonly ServerScrape[], name?: string): number | null {
  if (chain.length < 2) return null;
  const total = new Map<string, number>();
  for (let i = 1; i < chain.length; i++)
    increases(seriesOf(chain[i - 1]!, source, name), seriesOf(chain[i]!, source, name), total);
  return sum(total.values());
}

function spanSeconds(chain: readonly ServerScrape[]): number {
  return (chain[chain.length - 1]!.startUs - chain[0]!.startUs) / 1e6;
}

function counterOf(rule: Extract<ConceptRule, { kind: 'counter' }>, span: Span): ConceptValue | undefined {
  const source = pickSource(span.chain, rule.sources);
  const delta = source === null ? null : counterIncrease(source, span.chain);
  if (source === null || delta === null) return undefined;
  const seconds = spanSeconds(span.chain);
  return { kind: 'counter', delta, perS: seconds > 0 ? delta / seconds : 0, sources: [describe(source)] };
}

function ratioOf(rule: Extract<ConceptRule, { kind: 'ratio' }>, span: Span): ConceptValue | undefined {
  const pair = rule.pairs.find((p) => pickSource(span.chain, [p.hits]) !== null);
  if (pair === undefined) return undefined;
  const hits = counterIncrease(pair.hits, span.chain);
  const queries = counterIncrease(pair.queries, span.chain);
  if (hits === null || queries === null) return undefined;
  return {
    kind: 'ratio',
    value: queries > 0 ? hits / queries : null,
    hits,
    queries,
    sources: [describe(pair.hits), describe(pair.queries)],
  };
}

/** Prometheus' histogram_quantile over cumulative buckets [le, count], sorted by le, the last +Inf. */
export function bucketQuantile(q: number, buckets: readonly (readonly [number, number])[]): number | null {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  for (let i = 0; i < buckets.length; i++) {
    const [le, count] = buckets[i]!;
    if (count < rank) continue;
    // In the +Inf bucket: the highest finite bound is all that is known.
    if (le === Number.POSITIVE_INFINITY) return i > 0 ? buckets[i - 1]![0] : null;
    const [lower, below] = i > 0 ? buckets[i - 1]! : [le > 0 ? 0 : le, 0];
    return count === below ? le : lower + ((le - lower) * (rank - below)) / (count - below);
  }
  return null;
}

function histogramOf(rule: Extract<ConceptRule, { kind: 'histogram' }>, span: Span): ConceptValue | undefined {
  const source = pickSource(span.chain, rule.sources, '_bucket');
  if (source === null || span.chain.length < 2) return undefined;
  const base = source.name;
  // Bucket increases per le (label sets summed); le values are not scaled, observations are.
  const perLe = new Map<string, number>();
  const unscaled = { ...source, scale: 1 };
  for (let i = 1; i < span.chain.length; i++) {
    const le = (key: string): string => /(?:^|,)le=("(?:[^"\\]|\\.)*")/.exec(key)?.[1] ?? '"+Inf"';
    increases(
      seriesOf(span.chain[i - 1]!, unscaled, `${base}_bucket`),
      seriesOf(span.chain[i]!, unscaled, `${base}_bucket`),
      perLe,
      le,
    );
  }
  const scale = source.scale ?? 1;
  const buckets = [...perLe]
    .map(([le, count]): [number, number] => {
      const text = JSON.parse(le) as string;
      return [text === '+Inf' || text === 'Inf' ? Number.POSITIVE_INFINITY : Number(text) * scale, count];
    })
    .sort((a, b) => a[0] - b[0]);
  const count = counterIncrease(unscaled, span.chain, `${base}_count`) ?? buckets[buckets.length - 1]?.[1] ?? 0;
  const total = counterIncrease(source, span.chain, `${base}_sum`);
  return {
    kind: 'histogram',
    count,
    mean: count > 0 && total !== null ? total / count : null,
    p50: bucketQuantile(0.5, buckets),
    p90: bucketQuantile(0.9, buckets),
    p99: bucketQuantile(0.99, buckets),
    sources: [describe(source, '_bucket'), describe(source, '_sum'), describe(source, '_count')],
  };
}

/** The index of the first scrape that started after `us` (scrapes are in time order: one at a time). */
function firstAfter(scrapes: readonly ServerScrape[], us: number): number {
  let low = 0;
  let high = scrapes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (scrapes[mid]!.startUs > us) high = mid;
    else low = mid + 1;
  }
  return low;
}

function spanOf(scrapes: readonly ServerScrape[], fromUs: number, toUs: number): Span {
  // By bisection, not a pass over every scrape: a run's per-second series asks once per second.
  const first = firstAfter(scrapes, fromUs);
  const inside = scrapes.slice(first, Math.max(first, firstAfter(scrapes, toUs)));
  const baseline = first > 0 ? scrapes[first - 1] : undefined;
  return { inside, chain: baseline === undefined ? inside : [baseline, ...inside] };
}

const HISTOGRAM_TYPES = new Set(['histogram', 'gaugehistogram']);
const PART = /_(?:bucket|sum|count)$/;

/** How an extra sample name is read: under which key, as what; null: not reduced (a summary's quantiles). */
function extraRule(
  name: string,
  names: ReadonlySet<string>,
  types: ReadonlyMap<string, string>,
): { key: string; kind: ExtraValue['kind'] } | null {
  if (PART.test(name)) {
    const family = name.replace(PART, '');
    const type = types.get(family);
    // A histogram's parts are one extra under its name (untyped: recognised by its buckets).
    if (
      (type !== undefined && HISTOGRAM_TYPES.has(type)) ||
      (type === undefined && !types.has(name) && names.has(`${family}_bucket`))
    )
      return { key: family, kind: 'histogram' };
    if (type === 'summary') return name.endsWith('_bucket') ? null : { key: name, kind: 'counter' };
  }
  const type = types.get(name) ?? (name.endsWith('_total') ? types.get(name.slice(0, -'_total'.length)) : undefined);
  if (type === 'summary') return null;
  if (type === 'counter') return { key: name, kind: 'counter' };
  if (type === 'gauge') return { key: name, kind: 'gauge' };
  return { key: name, kind: name.endsWith('_total') ? 'counter' : 'gauge' };
}

function extrasOf(log: EndpointLog, span: Span): Record<string, ExtraValue> {
  // Only `metrics:` adds names beside the preset's.
  if (log.spec.metrics.length === 0) return {};
  const presetNames = log.engine === null ? new Set<string>() : presetSampleNames(ENGINE_PRESETS[log.engine]);
  const names = new Set<string>();
  for (const scrape of span.chain) for (const s of scrape.samples) if (!presetNames.has(s.name)) names.add(s.name);
  const types = log.types ?? new Map<string, string>();
  const out: Record<string, ExtraValue> = {};
  for (const name of [...names].sort()) {
    const rule = extraRule(name, names, types);
    if (rule === null || out[rule.key] !== undefined) continue;
    const sources = [{ name: rule.key }];
    const value =
      rule.kind === 'gauge'
        ? gaugeOf({ kind: 'gauge', combine: 'sum', sources }, span)
        : rule.kind === 'counter'
          ? counterOf({ kind: 'counter', sources }, span)
          : histogramOf({ kind: 'histogram', sources }, span);
    if (value !== undefined && value.kind !== 'ratio') out[rule.key] = value;
  }
  return out;
}

/**
 * The instants a counter's increase over (fromUs, toUs] is read between: the baseline scrape's start and
 * the last one's inside the window (what the server counted in between is the window's); null without two.
 */
export function counterSpanUs(log: EndpointLog, fromUs: number, toUs: number): { fromUs: number; toUs: number } | null {
  const { chain } = spanOf(log.scrapes, fromUs, toUs);
  return chain.length < 2 ? null : { fromUs: chain[0]!.startUs, toUs: chain[chain.length - 1]!.startUs };
}

/**
 * The concepts of `log`'s endpoint over (fromUs, toUs] (µs on the run's clock); `extras: false` leaves the
 * `metrics:` extras out (empty), for a reader of the concepts alone that asks once per second of a run.
 */
export function serverWindow(
  log: EndpointLog,
  fromUs: number,
  toUs: number,
  options: { readonly extras?: boolean } = {},
): ServerWindow {
  const span = spanOf(log.scrapes, fromUs, toUs);
  const concepts: Partial<Record<ServerConcept, ConceptValue>> = {};
  const rules = log.engine === null ? {} : ENGINE_PRESETS[log.engine];
  for (const [concept, rule] of Object.entries(rules) as [ServerConcept, ConceptRule][]) {
    const value =
      rule.kind === 'gauge'
        ? gaugeOf(rule, span)
        : rule.kind === 'counter'
          ? counterOf(rule, span)
          : rule.kind === 'ratio'
            ? ratioOf(rule, span)
            : histogramOf(rule, span);
    if (value !== undefined) concepts[concept] = value;
  }
  const failures = log.failures.at.filter((f) => f.startUs > fromUs && f.startUs <= toUs).length;
  return {
    url: log.url,
    engine: log.engine,
    fromUs,
    toUs,
    scrapes: span.inside.length,
    failures,
    concepts,
    extras: options.extras === false ? {} : extrasOf(log, span),
  };
}

/** Consecutive windows of `stepUs` from fromUs to toUs (the last one shorter): the per-second series. */
export function serverWindows(log: EndpointLog, fromUs: number, toUs: number, stepUs = 1_000_000): ServerWindow[] {
  const out: ServerWindow[] = [];
  for (let start = fromUs; start < toUs; start += stepUs)
    out.push(serverWindow(log, start, Math.min(start + stepUs, toUs)));
  return out;
}
