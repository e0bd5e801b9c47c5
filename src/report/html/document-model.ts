/**
 * The document model of inferbench's HTML pages (report.html, compare.html): sections of typed blocks,
 * built in Node, embedded as JSON and drawn by the generic page script (page-script.ts). Every string
 * in it is shown with textContent, so profile and server strings can never become markup.
 */

/** Colour hint for a cell or a line of text. */
export type Tone = 'ok' | 'bad' | 'warn' | 'muted' | 'plain';

export type Cell = string | { readonly text: string; readonly tone: Tone };

/** x axis kinds: `percentile` is HdrHistogram's log axis of 1/(1-p); `linear` a plain value axis; `time` seconds. */
export type ChartKind = 'percentile' | 'linear' | 'time';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  /** Dashed line (e.g. the baseline in compare.html, or p99 beside p50). */
  readonly dashed?: boolean;
  /** Palette index; series with the same index share a colour. */
  readonly color?: number;
  /** Markers only, no line: points that need not follow one another (e.g. one per capacity step). */
  readonly pointsOnly?: boolean;
  /** Draw each point with the marker of its x's tone (ChartSpec.markers). */
  readonly marked?: boolean;
  /** A thin line (the edges of a band). */
  readonly thin?: boolean;
}

/** A reference line across the plot (an SLO limit, the capacity), with an optional shaded band (its interval). */
export interface ChartRule {
  /** 'x': a vertical line at an x value; 'y': a horizontal line at a y value. */
  readonly axis: 'x' | 'y';
  readonly value: number;
  /** Shown in the chart's notes above the plot, so it always carries its unit. */
  readonly label: string;
  /** Written beside the line on the plot; `label` when absent. */
  readonly short?: string;
  readonly band?: readonly [number, number];
  /** Palette index; otherwise the tone's colour. */
  readonly color?: number;
  readonly tone?: Tone;
  readonly dashed?: boolean;
}

/** A shaded area between two series, by index into ChartSpec.series (e.g. a fit's 95% band). */
export interface ChartBand {
  readonly upper: number;
  readonly lower: number;
  readonly color?: number;
}

/** A marker per x value: its tone picks the shape (ok: dot, bad: cross, warn: ring), the legend names them. */
export interface ChartMarkers {
  readonly tones: readonly Tone[];
  readonly legend: readonly { readonly tone: Tone; readonly label: string }[];
}

/**
 * A marker on one point of one series drawn as an HTML element over the plot (a trend's change point): it
 * follows zoom and resize, shows `title` on hover, and carries `data` as `data-*` attributes for readers
 * and tests. Its tone picks its colour.
 */
export interface ChartPin {
  /** Index into ChartSpec.series. */
  readonly series: number;
  /** Index into ChartSpec.x. */
  readonly index: number;
  readonly tone: Tone;
  readonly title: string;
  /** Attribute name (`data-...`, lower case) -> value; other names are ignored. */
  readonly data: Readonly<Record<string, string>>;
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly kind: ChartKind;
  /** Axis labels always carry their unit, e.g. "TTFT (ms)". */
  readonly xLabel: string;
  readonly yLabel: string;
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
  /** Draw points only (sparse series). */
  readonly points?: boolean;
  readonly rules?: readonly ChartRule[];
  readonly bands?: readonly ChartBand[];
  readonly markers?: ChartMarkers;
  readonly pins?: readonly ChartPin[];
  /** A name per x value, shown beside it in the legend (a trend's run names). */
  readonly xNames?: readonly string[];
  /** Charts with the same key share their cursor and their x zoom (stacked charts on one time axis). */
  readonly syncKey?: string;
}

export type Block =
  | { readonly kind: 'heading'; readonly text: string }
  | { readonly kind: 'paragraph'; readonly text: string; readonly tone?: Tone }
  | { readonly kind: 'badges'; readonly items: readonly { readonly text: string; readonly tone: Tone }[] }
  | { readonly kind: 'kv'; readonly rows: readonly (readonly [string, Cell])[] }
  | {
      readonly kind: 'table';
      readonly caption?: string;
      readonly columns: readonly string[];
      readonly rows: readonly (readonly Cell[])[];
      /** Right-align every column from this index on (numbers). */
      readonly numericFrom?: number;
    }
  | { readonly kind: 'list'; readonly items: readonly Cell[] }
  | { readonly kind: 'chart'; readonly chart: ChartSpec }
  | {
      /** Horizontal bars, one per row, scaled to the largest value. */
      readonly kind: 'bars';
      readonly title: string;
      readonly unit: string;
      readonly rows: readonly { readonly label: string; readonly value: number; readonly color?: number }[];
    }
  | {
      /** Horizontal stacked bars: one row per item, one segment per legend entry. */
      readonly kind: 'stack';
      readonly title: string;
      readonly unit: string;
      readonly legend: readonly string[];
      readonly rows: readonly { readonly label: string; readonly segments: readonly number[] }[];
    }
  | { readonly kind: 'grid'; readonly blocks: readonly Block[] };

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly blocks: readonly Block[];
}

export interface PageDocument {
  /** Page title (document.title and the h1). */
  readonly title: string;
  readonly subtitle: string;
  readonly sections: readonly Section[];
  readonly footer: string;
}

/** Formats a number for a table: at most 3 decimals, thousands kept readable; "–" for missing values. */
export function fmt(value: number | null | undefined, decimals = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? Math.min(decimals, 1) : decimals;
  return value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}
