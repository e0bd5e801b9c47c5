/**
 * Reads Prometheus' text exposition format (what /metrics answers) into samples, naively but strictly
 * enough for tests: `name{label="value",...} number` lines, comments skipped, escapes in label values undone.
 */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePromText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL))
      labels[name as string] = (value as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const raw = match[3] as string;
    samples.push({ name: match[1] as string, labels, value: raw === '+Inf' ? Number.POSITIVE_INFINITY : Number(raw) });
  }
  return samples;
}

/** Samples of `name` whose labels include every label of `where`. */
export function promSamples(
  samples: readonly PromSample[],
  name: string,
  where: Readonly<Record<string, string>> = {},
): PromSample[] {
  return samples.filter(
    (sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The sum of the values of `name` matching `where` (Prometheus' `sum(name{where})`). */
export function promSum(
  samples: readonly PromSample[],
  name: string,
  where: Readonly<Record<string, string>> = {},
): number {
  return promSamples(samples, name, where).reduce((sum, sample) => sum + sample.value, 0);
}
