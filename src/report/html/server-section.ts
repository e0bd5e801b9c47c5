/**
 * The Server section of report.html, present when the run scraped target.server_metrics: the client's TTFT
 * per second beside the server's queue (running, waiting), KV-cache use, tokens and GPU, as stacked charts
 * on one time axis (the same seconds, the cursor and zoom shared); a table per scenario phase of
 * summary.json's `server` concepts with their raw names and the energy per output token; and how each
 * endpoint's scrapes went. A run without server metrics has no such section. Pure: no I/O.
 */
import type { GroupSummary, RunSummary, TimeSeriesPoint } from '../../metrics/run-summary.js';
import { SERVER_CONCEPT_SPECS } from '../../metrics/server-concepts.js';
import type { ServerConceptSummary, ServerEndpointSummary, ServerPhaseSummary } from '../../metrics/server-summary.js';
import type { Block, Cell, ChartSeries, Section } from './document-model.js';
import { fmt } from './document-model.js';

/** The cursor and x zoom of every chart of the section move together. */
export const SERVER_SYNC_KEY = 'server';

/** How a unit is shown: 0..1 ratios as %, bytes as GiB, the others as they are. */
const UNIT_DISPLAY: Readonly<Record<string, { readonly unit: string; readonly scale: number }>> = {
  ratio: { unit: '%', scale: 100 },
  bytes: { unit: 'GiB', scale: 1 / 2 ** 30 },
  preemptions: { unit: '', scale: 1 },
};

/** A concept's unit and the factor from summary.json's value; a concept this version does not know: as stored. */
function conceptDisplay(name: string): { readonly unit: string; readonly scale: number } {
  const spec = (SERVER_CONCEPT_SPECS as Readonly<Record<string, { readonly unit: string } | undefined>>)[name];
  if (spec === undefined) return { unit: '', scale: 1 };
  return UNIT_DISPLAY[spec.unit] ?? { unit: spec.unit, scale: 1 };
}

/** A plotted timeseries.csv server column: its legend and the factor to the chart's unit. */
interface ServerLine {
  readonly column: string;
  readonly label: string;
  readonly scale?: number;
  readonly dashed?: boolean;
  readonly color: number;
}

/** The server charts below the TTFT one; a chart is drawn when one of its columns is in the run. */
const SERVER_CHARTS: readonly {
  readonly id: string;
  readonly title: string;
  readonly yLabel: string;
  readonly lines: readonly ServerLine[];
}[] = [
  {
    id: 'srv-queue',
    title: "Server's queue: requests running and waiting (last scrape of each second)",
    yLabel: 'requests',
    lines: [
      { column: 'server_running', label: 'running', color: 2 },
      { column: 'server_waiting', label: 'waiting', color: 1 },
    ],
  },
  {
    id: 'srv-kv',
    title: 'KV-cache use and GPU use (last scrape of each second)',
    yLabel: 'use (%)',
    lines: [
      { column: 'server_kv_cache_usage', label: 'KV cache', scale: 100, color: 4 },
      { column: 'server_gpu_util', label: 'GPU', scale: 100, color: 3 },
    ],
  },
  {
    id: 'srv-tokens',
    title: "Tokens per second the server counted (its counters' rates)",
    yLabel: 'tokens/s',
    lines: [
      { column: 'server_prompt_tokens_per_s', label: 'prompt', color: 5 },
      { column: 'server_generation_tokens_per_s', label: 'generation', color: 6 },
    ],
  },
  {
    id: 'srv-power',
    title: 'GPU power (summed over GPUs, last scrape of each second)',
    yLabel: 'power (W)',
    lines: [{ column: 'server_power_w', label: 'power', color: 3 }],
  },
];

/** The Server section, or null when the run has no server metrics (then the report is as before). */
export function serverSection(summary: RunSummary, points: readonly TimeSeriesPoint[]): Section | null {
  const endpoints = summary.server_metrics ?? [];
  const phased = summary.groups.some((g) => g.server !== undefined);
  const columns = serverColumns(points);
  if (endpoints.length === 0 && !phased && columns.length === 0) return null;
  const blocks: Block[] = [
    {
      kind: 'paragraph',
      text: "The target's own metrics (target.server_metrics), scraped during the run, beside the client's. The charts share one time axis: seconds since the run's start, as in timeseries.csv; hover or zoom one and the others follow.",
      tone: 'muted',
    },
    ...serverCharts(summary.groups, points, columns),
    ...phaseTables(summary.groups, endpoints.length > 1),
    ...endpointBlocks(endpoints),
  ];
  return { id: 'server', title: 'Server (target.server_metrics)', blocks };
}

/** The server columns of the time series (the same on every point of a run that scraped). */
function serverColumns(points: readonly TimeSeriesPoint[]): string[] {
  return Object.keys(points.find((p) => p.server !== undefined)?.server ?? {});
}

function scaled(value: number | null | undefined, scale: number): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value * scale;
}

function serverCharts(groups: readonly GroupSummary[], points: readonly TimeSeriesPoint[], columns: string[]): Block[] {
  if (columns.length === 0) {
    return [
      {
        kind: 'paragraph',
        text: 'No scrape gave a value, so there are no per-second server columns to draw (see the endpoints below).',
        tone: 'warn',
      },
    ];
  }
  const seconds = [...new Set(points.map((p) => p.second))].sort((a, b) => a - b);
  // The server's values are the same on every point of a second, whichever group it is of.
  const serverAt = new Map<number, Readonly<Record<string, number | null>>>();
  for (const p of points) if (p.server !== undefined && !serverAt.has(p.second)) serverAt.set(p.second, p.server);
  const line = (l: ServerLine): ChartSeries => ({
    label: l.label,
    values: seconds.map((s) => scaled(serverAt.get(s)?.[l.column], l.scale ?? 1)),
    color: l.color,
    ...(l.dashed ? { dashed: true } : {}),
  });
  const chart = (id: string, title: string, yLabel: string, series: ChartSeries[]): Block => ({
    kind: 'chart',
    chart: {
      id,
      title,
      kind: 'time',
      xLabel: 'time since start (s)',
      yLabel,
      x: seconds,
      series,
      syncKey: SERVER_SYNC_KEY,
    },
  });
  const has = new Set(columns);
  const blocks: Block[] = [
    chart('srv-ttft', ttftTitle(has), 'TTFT (ms)', ttftSeries(groups, points, seconds, line, has)),
  ];
  for (const spec of SERVER_CHARTS) {
    const lines = spec.lines.filter((l) => has.has(l.column));
    if (lines.length > 0) blocks.push(chart(spec.id, spec.title, spec.yLabel, lines.map(line)));
  }
  return blocks;
}

function ttftTitle(has: ReadonlySet<string>): string {
  const server = has.has('server_ttft_p50_ms') ? "; the server's own TTFT from its histogram (grey)" : '';
  return `Client TTFT p50 (solid) and p99 (dashed) per second${server}`;
}

/** The client's TTFT p50/p99 of each group per second, then the server's TTFT quantiles when it has them. */
function ttftSeries(
  groups: readonly GroupSummary[],
  points: readonly TimeSeriesPoint[],
  seconds: readonly number[],
  line: (l: ServerLine) => ChartSeries,
  has: ReadonlySet<string>,
): ChartSeries[] {
  const keys = [...new Set([...groups.map((g) => g.key), ...points.map((p) => p.group)])];
  const present = keys.filter((k) => points.some((p) => p.group === k));
  const index = new Map<string, TimeSeriesPoint>();
  for (const p of points) index.set(`${p.group}\u0000${p.second}`, p);
  const client = (key: string, which: 'ttft_p50_ms' | 'ttft_p99_ms'): ChartSeries => ({
    label: `${key} ${which === 'ttft_p50_ms' ? 'p50' : 'p99'}`,
    values: seconds.map((s) => index.get(`${key}\u0000${s}`)?.[which] ?? null),
    color: keys.indexOf(key),
    ...(which === 'ttft_p99_ms' ? { dashed: true } : {}),
  });
  const series = [...present.map((k) => client(k, 'ttft_p50_ms')), ...present.map((k) => client(k, 'ttft_p99_ms'))];
  if (has.has('server_ttft_p50_ms')) series.push(line({ column: 'server_ttft_p50_ms', label: 'server p50', color: 7 }));
  if (has.has('server_ttft_p99_ms'))
    series.push(line({ column: 'server_ttft_p99_ms', label: 'server p99', color: 7, dashed: true }));
  return series;
}

/** The columns of the concept tables: the stats a kind has, '–' where it has none. */
const CONCEPT_COLUMNS = [
  'concept (unit)',
  'kind',
  'raw names',
  'mean',
  'max',
  'p50',
  'p99',
  'count / increase',
  'per s',
  'per s max',
  'per s p99',
  'ratio',
];

/** One row of a concept table, in the concept's display unit. */
export function conceptRow(name: string, concept: ServerConceptSummary, withEndpoint: boolean): Cell[] {
  const display = conceptDisplay(name);
  const s = (v: number | null): string => fmt(scaled(v, display.scale));
  // A statistic absent from results written before it was: shown as none.
  const o = (v: number | null | undefined): string => (v === undefined ? '–' : s(v));
  const label = display.unit === '' ? name : `${name} (${display.unit})`;
  const sources = concept.sources.join(', ') + (withEndpoint ? `\n@ ${concept.endpoint}` : '');
  const none = '–';
  switch (concept.kind) {
    case 'gauge':
      return [
        label,
        'gauge',
        sources,
        s(concept.mean),
        s(concept.max),
        none,
        o(concept.p99),
        none,
        none,
        none,
        none,
        none,
      ];
    case 'counter':
      return [
        label,
        'counter',
        sources,
        none,
        none,
        none,
        none,
        s(concept.delta),
        s(concept.per_s),
        o(concept.max_per_s),
        o(concept.p99_per_s),
        none,
      ];
    case 'ratio':
      return [
        label,
        'ratio',
        sources,
        none,
        none,
        none,
        none,
        `${fmt(concept.hits)} / ${fmt(concept.queries)}`,
        none,
        none,
        none,
        s(concept.value),
      ];
    case 'histogram':
      return [
        label,
        'histogram',
        sources,
        s(concept.mean),
        none,
        s(concept.p50),
        s(concept.p99),
        fmt(concept.count),
        none,
        none,
        none,
        none,
      ];
  }
}

/** A table per scenario phase: the groups of a scenario ran together against one server and share it. */
function phaseTables(groups: readonly GroupSummary[], withEndpoint: boolean): Block[] {
  const phases = new Map<string, { scenario: string; phase: string; summary: ServerPhaseSummary; groups: string[] }>();
  for (const g of groups) {
    const server = g.server;
    if (server === undefined) continue;
    for (const [phase, summary] of [
      ['measured', server.measured],
      ['warmup', server.warmup ?? null],
    ] as const) {
      if (summary === null) continue;
      const key = `${g.scenario}\u0000${phase}\u0000${JSON.stringify(summary)}`;
      const known = phases.get(key);
      if (known) known.groups.push(g.key);
      else phases.set(key, { scenario: g.scenario, phase, summary, groups: [g.key] });
    }
  }
  const blocks: Block[] = [];
  for (const { scenario, phase, summary, groups: keys } of phases.values()) {
    blocks.push(
      { kind: 'heading', text: `Scenario ${scenario}, ${phase}` },
      {
        kind: 'kv',
        rows: [
          ['Groups', keys.join(', ')],
          ['Window', `${fmt(summary.from_s, 3)} s to ${fmt(summary.to_s, 3)} s of the run`],
          [
            'Scrapes in the window',
            summary.failures > 0
              ? { text: `${summary.scrapes} ok, ${summary.failures} failed`, tone: 'warn' }
              : `${summary.scrapes} ok, 0 failed`,
          ],
          ['Output tokens', String(summary.output_tokens)],
          [
            'Energy per output token',
            summary.energy_per_output_token_j === null
              ? { text: 'none: no GPU power or energy was scraped', tone: 'muted' }
              : `${fmt(summary.energy_per_output_token_j, 3)} J/token`,
          ],
        ],
      },
    );
    const rows = Object.entries(summary.concepts).map(([name, concept]) => conceptRow(name, concept, withEndpoint));
    blocks.push(
      rows.length > 0
        ? {
            kind: 'table',
            caption: `The server over the ${phase} window (summary.json groups[].server.${phase})`,
            columns: CONCEPT_COLUMNS,
            numericFrom: 3,
            rows,
          }
        : { kind: 'paragraph', text: 'No concept had a value in this window.', tone: 'muted' },
    );
    // The `metrics:` extras by raw name, as stored: no concept's unit applies to them.
    const extras = Object.entries(summary.extras ?? {}).map(([name, extra]) => conceptRow(name, extra, withEndpoint));
    if (extras.length > 0)
      blocks.push({
        kind: 'table',
        caption: `metrics: extras over the ${phase} window, in their own units (summary.json groups[].server.${phase}.extras)`,
        columns: CONCEPT_COLUMNS.map((c) => (c === 'concept (unit)' ? 'name' : c)),
        numericFrom: 3,
        rows: extras,
      });
  }
  return blocks;
}

function failuresText(endpoint: ServerEndpointSummary): Cell {
  if (endpoint.failures === 0) return { text: '0', tone: 'ok' };
  const kinds = Object.entries(endpoint.failures_by_kind)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  return { text: `${endpoint.failures} (${kinds})`, tone: 'bad' };
}

/** How each endpoint's scrapes went (summary.json server_metrics). */
function endpointBlocks(endpoints: readonly ServerEndpointSummary[]): Block[] {
  if (endpoints.length === 0) return [];
  return [
    { kind: 'heading', text: 'Endpoints scraped' },
    {
      kind: 'table',
      caption: 'Each metrics endpoint and how its scrapes went (a failed scrape never changes a client number)',
      columns: ['endpoint', 'preset', 'engine', 'last error', 'interval (ms)', 'attempts', 'ok', 'skipped', 'failed'],
      numericFrom: 4,
      rows: endpoints.map((e) => [
        e.url,
        e.preset,
        e.engine ?? { text: 'none recognised', tone: 'warn' },
        e.last_error === null
          ? '–'
          : { text: `${e.last_error.kind} at ${fmt(e.last_error.at_s, 3)} s: ${e.last_error.message}`, tone: 'warn' },
        String(e.interval_ms),
        String(e.attempts),
        String(e.scrapes_ok),
        String(e.skipped),
        failuresText(e),
      ]),
    },
  ];
}
