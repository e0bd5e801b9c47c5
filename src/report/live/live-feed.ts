/**
 * What the live dashboard knows of a run as it goes: the run's progress ticks and scenario starts in,
 * JSON-ready messages out (the whole state for a page that opens, one point per tick, the end). It counts
 * nothing itself: each group's counts so far and, for the first groups (the ones a chart can tell apart),
 * its last seconds (requests/s, output tokens/s, TTFT p50 and p99) are the run collector's, read in place
 * when a message is made (attach()), so the page shows what summary.json will. It keeps the history of
 * every tick, bounded (live-series.ts). With target.server_metrics, each tick also carries the target's
 * own metrics at their latest scrape (aggregate/server-metrics/server-latest.ts): the server's running,
 * waiting and KV-cache use become columns and the status's `server`.
 */
import type { LiveGroups } from '../../aggregate/early-stop.js';
import type { ProgressSnapshot } from '../../aggregate/types.js';
import type { ServerLatest } from '../../aggregate/server-metrics/server-latest.js';
import type { ServerConcept } from '../../metrics/server-concepts.js';
import { GROUP_WINDOWS } from '../../aggregate/progress-window.js';
import type { RunSummary } from '../../metrics/run-summary.js';
import type { ResolvedGroup } from '../../profile/resolved-profile.js';
import { type LiveEndMessage, liveEndMessage } from './live-end.js';
import { LiveSeries, type LiveSeriesData, type LiveValue } from './live-series.js';

/** Groups with a window and lines of their own: those the collector keeps a window of. */
export const MAX_CHARTED_GROUPS = GROUP_WINDOWS;
/** One point a second for an hour before the history starts to thin. */
export const DEFAULT_MAX_POINTS = 3600;

/** The run's columns, then per charted group i: `g<i>.rps`, `g<i>.otps`, `g<i>.ttft_p50`, `g<i>.ttft_p99`. */
const RUN_COLUMNS = ['t', 'rps', 'otps', 'ttft_p50', 'in_flight', 'failed', 'throttled', 'dropped'] as const;
const GROUP_COLUMNS = ['rps', 'otps', 'ttft_p50', 'ttft_p99'] as const;
/** With target.server_metrics, last: the server's gauges at its latest scrape (KV-cache use 0 to 1). */
const SERVER_COLUMNS = ['server.running', 'server.waiting', 'server.kv_cache_usage'] as const;
const SERVER_GAUGES: readonly ServerConcept[] = ['running', 'waiting', 'kv_cache_usage'];

export type LiveRunState = 'starting' | 'warmup' | 'running' | 'ended';

/** A progress tick as the runner sends it (runner/run-events.ts RunTick, named here without importing runner/). */
export interface LiveTick {
  readonly snapshot: ProgressSnapshot;
  readonly scenario: string;
  readonly warmup: boolean;
  readonly plannedMs: number | null;
  readonly plannedRequests: number | null;
  /** target.server_metrics: each endpoint at its latest scrape, read on demand; absent or null when the run does not scrape. */
  readonly server?: (() => ServerLatest) | null;
}

/**
 * The target's own gauges at their latest scrape, each from the first endpoint (in the profile's order)
 * that has it; null where none has (the engine does not expose it, or no recent scrape).
 */
export interface LiveServerNow {
  readonly running: number | null;
  readonly waiting: number | null;
  /** 0 to 1. */
  readonly kvCacheUsage: number | null;
  /** When the latest scrape shown started, in seconds since the run's start; null: none recent. */
  readonly atS: number | null;
  /** Successful and failed scrapes so far, of every endpoint. */
  readonly scrapes: number;
  readonly failures: number;
}

/** A group's row of the page's table. Rates and TTFT are over the last seconds; null for uncharted groups. */
export interface LiveGroupRow {
  readonly index: number;
  readonly key: string;
  readonly charted: boolean;
  readonly ok: number;
  readonly failed: number;
  readonly throttled: number;
  /** Failed and throttled requests per error class. */
  readonly errors: Readonly<Record<string, number>>;
  readonly requestsPerS: number | null;
  readonly outputTokensPerS: number | null;
  readonly ttftP50Ms: number | null;
  readonly ttftP99Ms: number | null;
}

/** The header and table of the page at one moment. */
export interface LiveStatus {
  readonly state: LiveRunState;
  readonly scenario: string | null;
  readonly elapsedMs: number;
  readonly plannedMs: number | null;
  readonly plannedRequests: number | null;
  /** The run's progress snapshot (all groups); null before the first tick. */
  readonly totals: ProgressSnapshot | null;
  readonly groups: readonly LiveGroupRow[];
  /** The target's own metrics (target.server_metrics); null when the run does not scrape. */
  readonly server: LiveServerNow | null;
}

/** The first event of every stream (and GET /state): all a page needs to draw the run so far. */
export interface LiveStateMessage {
  readonly profile: string;
  readonly target: string;
  readonly maxPoints: number;
  readonly status: LiveStatus;
  readonly series: LiveSeriesData;
  /** Set once the run has ended. */
  readonly end: LiveFeedEnd | null;
}

/** The `end` event: the run's summary, and the status with every request counted (after the last tick). */
export interface LiveFeedEnd extends LiveEndMessage {
  readonly status: LiveStatus;
}

/** A `tick` event: the new point (in the state's column order) and the status. */
export interface LiveTickMessage {
  readonly point: readonly LiveValue[];
  readonly status: LiveStatus;
}

export interface LiveFeedOptions {
  readonly profile: string;
  /** What the run is sent to, as the header shows it. */
  readonly target: string;
  /** The profile's groups (a model may still be unresolved: its key is updated when the run names it). */
  readonly groups: readonly ResolvedGroup[];
  /** Monotonic microseconds (util/clock.ts nowUs), the clock of RequestRecord timestamps. */
  readonly nowUs: () => number;
  readonly maxPoints?: number;
  /** The profile names target.server_metrics: the server's columns and status are kept. */
  readonly serverMetrics?: boolean;
}

/** One group as the feed knows it before the collector does: its key (updated when its model is resolved). */
interface GroupState {
  readonly index: number;
  key: string;
  readonly charted: boolean;
}

/** The dashboard's model of a run (see the file's comment). */
export class LiveFeed {
  readonly #options: LiveFeedOptions;
  /** Second 0 of the windows: the feed's start, then the run's (taken from the first tick). */
  #originUs: number;
  #aligned = false;
  readonly #groups: GroupState[] = [];
  readonly #charted: GroupState[];
  readonly #series: LiveSeries;
  #state: LiveRunState = 'starting';
  #lastTick: LiveTick | null = null;
  #end: LiveFeedEnd | null = null;
  #numbers: LiveGroups = () => undefined;
  /** null: the run does not scrape. */
  #server: LiveServerNow | null;

  constructor(options: LiveFeedOptions) {
    this.#options = options;
    this.#originUs = options.nowUs();
    for (const group of options.groups) {
      this.#groups[group.index] = { index: group.index, key: group.key, charted: group.index < MAX_CHARTED_GROUPS };
    }
    this.#charted = this.#groups.filter((group) => group.charted);
    const columns = [
      ...RUN_COLUMNS,
      ...this.#charted.flatMap((group) => GROUP_COLUMNS.map((column) => `g${group.index}.${column}`)),
      ...(options.serverMetrics === true ? SERVER_COLUMNS : []),
    ];
    this.#server = options.serverMetrics === true ? serverNow(null) : null;
    this.#series = new LiveSeries(columns, options.maxPoints ?? DEFAULT_MAX_POINTS);
  }

  /** A scenario starts with these groups, their models resolved: the table shows their real keys. */
  scenarioStarted(groups: readonly ResolvedGroup[]): void {
    for (const group of groups) {
      const state = this.#groups[group.index];
      if (state !== undefined) state.key = group.key;
    }
  }

  /** The run's collector is made: its groups' numbers are what the page shows from now on. */
  attach(numbers: LiveGroups): void {
    this.#numbers = numbers;
  }

  /** A progress tick: one point of history and the message that carries it to open pages. */
  tick(tick: LiveTick): LiveTickMessage {
    this.#lastTick = tick;
    if (!this.#aligned) {
      // The windows' seconds become the run's, so their rates cover what the progress line's cover.
      this.#originUs = this.#options.nowUs() - tick.snapshot.elapsedMs * 1000;
      this.#aligned = true;
    }
    if (this.#state !== 'ended') this.#state = tick.warmup ? 'warmup' : 'running';
    const s = tick.snapshot;
    const point: LiveValue[] = [
      round(s.elapsedMs / 1000, 3),
      round(s.requestsPerS, 3),
      round(s.outputTokensPerS, 1),
      s.ttftP50Ms,
      s.inFlight,
      s.failed,
      s.throttled,
      s.dropped,
    ];
    const rows = this.#rows();
    for (const group of this.#charted) {
      const row = rows[group.index] as LiveGroupRow;
      point.push(row.requestsPerS, row.outputTokensPerS, row.ttftP50Ms, row.ttftP99Ms);
    }
    if (this.#server !== null) {
      const server = serverNow(tick.server?.() ?? null);
      this.#server = server;
      point.push(server.running, server.waiting, server.kvCacheUsage);
    }
    this.#series.push(point);
    return { point, status: this.#status(rows) };
  }

  /** The run has ended (its results written); null: it ended without a summary. */
  end(summary: RunSummary | null): LiveFeedEnd {
    this.#state = 'ended';
    this.#end = { ...liveEndMessage(summary), status: this.#status(this.#rows()) };
    return this.#end;
  }

  get ended(): boolean {
    return this.#state === 'ended';
  }

  /** Everything a page that opens now needs. */
  state(): LiveStateMessage {
    return {
      profile: this.#options.profile,
      target: this.#options.target,
      maxPoints: this.#series.maxPoints,
      status: this.#status(this.#rows()),
      series: this.#series.data(),
      end: this.#end,
    };
  }

  #status(rows: readonly LiveGroupRow[]): LiveStatus {
    const tick = this.#lastTick;
    return {
      state: this.#state,
      scenario: tick?.scenario ?? null,
      elapsedMs: tick?.snapshot.elapsedMs ?? 0,
      plannedMs: tick?.plannedMs ?? null,
      plannedRequests: tick?.plannedRequests ?? null,
      totals: tick?.snapshot ?? null,
      groups: rows.filter((row) => row !== undefined),
      server: this.#server,
    };
  }

  /** Each group's row now, indexed by group index (its window read at the current second). */
  #rows(): LiveGroupRow[] {
    const nowUs = this.#options.nowUs();
    const second = this.#secondOf(nowUs);
    const rows: LiveGroupRow[] = [];
    for (const group of this.#groups) {
      if (group === undefined) continue;
      const numbers = this.#numbers(group.index);
      // The collector's groups have their models resolved (with --workers no scenario start is told).
      if (numbers !== undefined) group.key = numbers.group.key;
      const totals = group.charted ? (numbers?.window?.read(second) ?? EMPTY_WINDOW) : null;
      // The rates divide by the time since the window's first second began, as the progress line's do.
      const windowS = totals === null ? 0 : (nowUs - this.#originUs) / 1_000_000 - totals.fromSecond;
      rows[group.index] = {
        index: group.index,
        key: group.key,
        charted: group.charted,
        ok: numbers?.ok ?? 0,
        failed: numbers?.failed ?? 0,
        throttled: numbers?.throttled ?? 0,
        errors: { ...numbers?.errors },
        requestsPerS: totals === null ? null : windowS > 0 ? round(totals.ended / windowS, 3) : 0,
        outputTokensPerS: totals === null ? null : windowS > 0 ? round(totals.outputTokens / windowS, 1) : 0,
        ttftP50Ms: totals?.ttftP50Ms ?? null,
        ttftP99Ms: totals?.ttftP99Ms ?? null,
      };
    }
    return rows;
  }

  /** Whole seconds since the feed began (a time before counts in second 0). */
  #secondOf(atUs: number): number {
    return Math.max(0, Math.floor((atUs - this.#originUs) / 1_000_000));
  }
}

/** The server's gauges for the page from each endpoint's latest scrape (see LiveServerNow). */
function serverNow(latest: ServerLatest | null): LiveServerNow {
  const endpoints = latest ?? [];
  const gauge = (concept: ServerConcept): { value: number; atS: number | null } | null => {
    for (const endpoint of endpoints) {
      const value = endpoint.concepts[concept];
      if (value?.kind === 'gauge' && Number.isFinite(value.last)) return { value: value.last, atS: endpoint.atS };
    }
    return null;
  };
  const [running, waiting, kv] = SERVER_GAUGES.map(gauge);
  const atS = [running, waiting, kv].find((found) => found != null)?.atS ?? null;
  return {
    running: running?.value ?? null,
    waiting: waiting?.value ?? null,
    kvCacheUsage: kv?.value ?? null,
    atS,
    scrapes: endpoints.reduce((sum, endpoint) => sum + endpoint.scrapesOk + endpoint.failures, 0),
    failures: endpoints.reduce((sum, endpoint) => sum + endpoint.failures, 0),
  };
}

/** A charted group's window before the collector has it: nothing ended yet. */
const EMPTY_WINDOW = { fromSecond: 0, ended: 0, outputTokens: 0, ttftP50Ms: null, ttftP99Ms: null } as const;

/** Fewer digits in the JSON the page is sent every second. */
function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
