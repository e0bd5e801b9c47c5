/** Number and change formatting shared by compare's terminal table, markdown, JUnit and HTML. */
import type { MetricComparison, Verdict } from './compare-runs.js';
import { formatP } from './compare-runs.js';
import type { ServerComparison, ServerSide, ServerValueComparison } from './compare-server.js';

export function formatValue(value: number | null, unit = ''): string {
  if (value === null || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 2 : 4;
  const text = String(Math.round(value * 10 ** digits) / 10 ** digits);
  return unit ? `${text} ${unit}` : text;
}

export function formatChange(c: MetricComparison): string {
  if (c.absoluteChange === null) return '–';
  const sign = c.absoluteChange > 0 ? '+' : '';
  const relative =
    c.relativeChange === null ? '' : ` (${c.relativeChange > 0 ? '+' : ''}${(c.relativeChange * 100).toFixed(1)}%)`;
  return `${sign}${formatValue(c.absoluteChange, c.unit)}${relative}`;
}

/** The group a row is about: its key, or `baseline key vs candidate key` for groups paired with --pair. */
export function groupLabel(c: Pick<MetricComparison, 'group' | 'candidateGroup'>): string {
  return c.group === c.candidateGroup ? c.group : `${c.group} vs ${c.candidateGroup}`;
}

export function formatPValue(p: number | null): string {
  return p === null ? 'n/a' : formatP(p);
}

export const VERDICT_TEXT: Record<Verdict, string> = {
  regression: 'REGRESSION',
  not_called: 'not called (client)',
  improved: 'improved',
  within_tolerance: 'ok',
  not_significant: 'ok (not significant)',
  no_data: 'no data',
};

/** A server value for people: a ratio as a percentage, counts and other units as compare shows values. */
export function formatServerValue(value: number | null, unit: string): string {
  if (value === null) return '–';
  if (unit === 'ratio') return `${formatValue(value * 100)}%`;
  return formatValue(value, unit);
}

/** The change: a ratio's in percentage points, others absolute with the relative change. */
export function formatServerChange(v: ServerValueComparison): string {
  if (v.absoluteChange === null) return '–';
  const sign = v.absoluteChange > 0 ? '+' : '';
  if (v.unit === 'ratio') return `${sign}${formatValue(v.absoluteChange * 100)} pp`;
  const relative =
    v.relativeChange === null ? '' : ` (${v.relativeChange > 0 ? '+' : ''}${(v.relativeChange * 100).toFixed(1)}%)`;
  return `${sign}${formatValue(v.absoluteChange, v.unit)}${relative}`;
}

/** The section's title, the same in every output. */
export const SERVER_SECTION_TITLE = 'Server side (target.server_metrics): context, never part of the verdict';

/** The table's columns and one row of cells per value. */
export const SERVER_COLUMNS = ['group', 'server', 'baseline', 'candidate', 'change'] as const;
export function serverRows(server: ServerComparison): string[][] {
  return server.values.map((v) => [
    groupLabel(v),
    v.id,
    formatServerValue(v.baseline, v.unit),
    formatServerValue(v.candidate, v.unit),
    formatServerChange(v),
  ]);
}

/** The lines before the table: which endpoints each run scraped, and the note. */
export function serverPreamble(server: ServerComparison): string[] {
  const side = (role: string, s: ServerSide): string =>
    `${role}: ${s.scraped ? s.endpoints.join('; ') || 'scraped' : 'not scraped'}`;
  return [
    side('baseline', server.baseline),
    side('candidate', server.candidate),
    ...(server.note === null ? [] : [server.note]),
  ];
}
