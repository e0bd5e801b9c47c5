/**
 * The Prometheus text exposition format (and OpenMetrics text) -> flat samples `{ name, labels, value }`,
 * through parse-prometheus-text-format for the grammar (label escaping, timestamps, NaN and +Inf), and never
 * a throw: a body that is not Prometheus text, or that the parser could not read wholly, is a classified
 * result the scraper records as a failed scrape.
 *
 * What the wrapper adds to the library (1.1.1), each found by trying it:
 * - it folds a `# TYPE x histogram` family into one `buckets` map and, as soon as the family has a label
 *   other than `le` (vLLM's `model_name`), keeps only the last label set, without its labels, `_sum` or
 *   `_count`. So comment lines are not given to it (their TYPEs are read here): each `_bucket`, `_sum`,
 *   `_count` then comes back as a sample of its own with every label, `le` and `quantile` included;
 * - it costs about 10 µs a line (a vLLM /metrics of 300 lines: 3 ms; 3 000 lines: 31 ms, on the run's
 *   event loop): only the lines whose metric name is kept (`keep`: the preset's names and the profile's
 *   `metrics:`) are given to it, picked by the name before the first `{` or space;
 * - it skips a line it cannot read without saying so (`foo{ 1` gives nothing, `b{ 2` gives the value ""):
 *   the lines that should be samples are counted and every value is checked as a number;
 * - it drops a last sample line that has no newline after it: the text given to it always ends with one;
 * - HTML or JSON (a login page, a JSON API at the wrong path) parses as "no samples": recognised first.
 * OpenMetrics' `# EOF` is a comment to it, and `_created` series come back as samples the presets never
 * name. Timestamps are dropped: a scrape is stamped with the run's clock instead.
 *
 * The library is loaded on the first parse (a CommonJS module, so synchronously): most runs scrape nothing,
 * and every worker thread of `run --workers` imports this module through the runner.
 */
import { createRequire } from 'node:module';
import type parsePrometheusTextFormat from 'parse-prometheus-text-format';

const require = createRequire(import.meta.url);
let parser: typeof parsePrometheusTextFormat | undefined;

/** One series' value at one scrape: `name{labels} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** NaN, +Infinity and -Infinity as the text says. */
  readonly value: number;
}

/** The TYPE a family declared (lowercase, as written), by family name. */
export type FamilyTypes = ReadonlyMap<string, string>;

export type ExpositionResult =
  | { readonly ok: true; readonly samples: readonly Sample[]; readonly types: FamilyTypes }
  | { readonly ok: false; readonly kind: 'parse' | 'not_prometheus' | 'too_large'; readonly message: string };

function numberOf(text: string): number | null {
  switch (text) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
  }
  if (text === '' || text.trim() !== text) return null;
  const value = Number(text);
  return Number.isNaN(value) ? null : value;
}

/** A body that is plainly not the text format: markup or JSON. */
export function looksLikeOtherFormat(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '<' || first === '{' || first === '[';
}

/** The metric names of a body's sample lines (cheap: no parsing), e.g. to recognise the engine. */
export function sampleNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = lineName(line);
    if (name !== null) names.add(name);
  }
  return names;
}

/** The metric name of a sample line; null for a comment or a blank line. */
function lineName(line: string): string | null {
  const trimmed = line.trimStart();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  const brace = trimmed.indexOf('{');
  const space = trimmed.search(/[ \t]/);
  const end = brace < 0 ? space : space < 0 ? brace : Math.min(brace, space);
  return end < 0 ? trimmed.replace(/\r$/, '') : trimmed.slice(0, end);
}

/**
 * Parses the sample lines of `text` whose metric name `keep` accepts (default: all); at most `maxSeries`
 * sample lines in all (more is `too_large`, found before the parser runs).
 */
export function parseExposition(
  text: string,
  maxSeries: number,
  keep: (name: string) => boolean = () => true,
): ExpositionResult {
  if (looksLikeOtherFormat(text))
    return {
      ok: false,
      kind: 'not_prometheus',
      message: `not Prometheus text: starts with ${JSON.stringify(text.trimStart().slice(0, 20))}`,
    };
  const kept: string[] = [];
  const types = new Map<string, string>();
  let sampleLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.trimStart();
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      const parts = trimmed.split(/\s+/);
      if (parts[1] === 'TYPE' && parts[2] !== undefined && parts[3] !== undefined)
        types.set(parts[2], parts[3].toLowerCase());
      continue;
    }
    if (++sampleLines > maxSeries)
      return { ok: false, kind: 'too_large', message: `more than ${maxSeries} series (the limit of one scrape)` };
    const name = lineName(line);
    if (name !== null && keep(name)) kept.push(line);
  }
  let families: ReturnType<typeof parsePrometheusTextFormat>;
  try {
    // The library drops a last line without its newline: always end with one.
    parser ??= require('parse-prometheus-text-format') as typeof parsePrometheusTextFormat;
    families = parser(`${kept.join('\n')}\n`);
  } catch (error) {
    return { ok: false, kind: 'parse', message: `cannot parse: ${(error as Error).message}` };
  }
  const samples: Sample[] = [];
  for (const family of families) {
    for (const metric of family.metrics) {
      if (!('value' in metric)) continue;
      const value = numberOf(metric.value);
      if (value === null)
        return {
          ok: false,
          kind: 'parse',
          message: `series ${family.name} has the value ${JSON.stringify(metric.value)}, not a number`,
        };
      samples.push({ name: family.name, labels: metric.labels ?? {}, value });
    }
  }
  if (samples.length !== kept.length)
    return {
      ok: false,
      kind: 'parse',
      message: `${kept.length - samples.length} of ${kept.length} sample lines could not be read (malformed or repeated series)`,
    };
  return { ok: true, samples, types };
}
