/**
 * The Prometheus text exposition format (and OpenMetrics text) -> flat samples `{ name, labels, value }`,
 * through parse-prometheus-text-format for the grammar (label escaping, timestamps, NaN and +Inf), and never
 * a throw: a body that is not Prometheus text, or that the parser could not read wholly, is a classified
 * result the scraper records as a failed scrape.
 *
 * What the wrapper adds to the library (1.1.1), each found by trying it:
 * - it folds a `# TYPE x histogram` family into one `buckets` map and, as soon as the family has a label
 *   other than `le` (vLLM's `model_name`), keeps only the last label set, without its labels, `_sum` or
 *   `_count`. So the TYPE lines of histograms and summaries are left out before parsing: each `_bucket`,
 *   `_sum`, `_count` then comes back as a sample of its own with every label, `le` and `quantile` included;
 * - it skips a line it cannot read without saying so (`foo{ 1` gives nothing, `b{ 2` gives the value ""):
 *   the lines that should be samples are counted and every value is checked as a number;
 * - it drops a last sample line that has no newline after it: the text given to it always ends with one;
 * - HTML or JSON (a login page, a JSON API at the wrong path) parses as "no samples": recognised first.
 * OpenMetrics' `# EOF` is a comment to it, and `_created` series come back as samples the presets never
 * name. Timestamps are dropped: a scrape is stamped with the run's clock instead.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

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

/** The TYPE comments whose families the library would fold (and lose): left out before parsing. */
const FOLDED_TYPES = new Set(['histogram', 'summary', 'gaugehistogram']);

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

/**
 * Parses `text`; at most `maxSeries` sample lines are accepted (more is `too_large`, found before the
 * parser runs, whose cost grows with the lines: about 12 µs a line).
 */
export function parseExposition(text: string, maxSeries: number): ExpositionResult {
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
      if (parts[1] === 'TYPE' && parts[2] !== undefined && parts[3] !== undefined) {
        const type = parts[3].toLowerCase();
        types.set(parts[2], type);
        if (FOLDED_TYPES.has(type)) continue;
      }
      kept.push(line);
      continue;
    }
    if (++sampleLines > maxSeries)
      return { ok: false, kind: 'too_large', message: `more than ${maxSeries} series (the limit of one scrape)` };
    kept.push(line);
  }
  let families: ReturnType<typeof parsePrometheusTextFormat>;
  try {
    // The library drops a last line without its newline: always end with one.
    families = parsePrometheusTextFormat(`${kept.join('\n')}\n`);
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
  if (samples.length !== sampleLines)
    return {
      ok: false,
      kind: 'parse',
      message: `${sampleLines - samples.length} of ${sampleLines} sample lines could not be read (malformed or repeated series)`,
    };
  return { ok: true, samples, types };
}
