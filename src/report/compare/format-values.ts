/** Number and change formatting shared by compare's terminal table, markdown, JUnit and HTML. */
import type { MetricComparison, Verdict } from './compare-runs.js';
import { formatP } from './compare-runs.js';

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
  improved: 'improved',
  within_tolerance: 'ok',
  not_significant: 'ok (not significant)',
  no_data: 'no data',
};
