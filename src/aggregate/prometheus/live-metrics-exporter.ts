/**
 * The numbers of `inferbench run --metrics-port`, as a prom-client registry read by Prometheus at /metrics.
 * Requests by outcome, errors by class and tokens are the run collector's own counts, read in place at
 * scrape time (attach()): the collector counts each finished request once, so /metrics can never disagree
 * with summary.json. The exporter keeps only what Prometheus wants and the collector has not: fixed-bucket
 * latency histograms and the rate-limit gauges, observed from the finished records, and the run's ticks.
 * Created only when /metrics is on, so a run without it pays nothing. The hot path (one call per finished
 * request) only adds to preallocated numbers (live-group-series.ts); labels and text are made at scrape time.
 */
import { type Metric, Registry } from 'prom-client';
import type { RequestRecord } from '../../client/request-record.js';
import type { RecordedValues } from '../../metrics/request-values.js';
import type { ServerLatest } from '../server-metrics/server-latest.js';
import type { ResolvedGroup } from '../../profile/resolved-profile.js';
import type { LiveGroups } from '../early-stop.js';
import type { ProgressSnapshot } from '../types.js';
import { groupLabels, LiveGroupSeries } from './live-group-series.js';
import { LIVE_FAMILIES, type LiveFamilySpec, type LiveRunFigures, type LiveState } from './live-metric-families.js';
import { ServerEndpointLabels } from './live-server-families.js';

export interface LiveMetricsExporterOptions {
  /** `--shard i/N` as "i/N"; "" for a run in one piece. The same label names in every shard. */
  readonly shard: string;
  readonly profile: string;
  readonly version: string;
}

/** The harness's event-loop delay over the last second, in ms (the caller owns the monitor). */
export interface EventLoopDelaySample {
  readonly p99Ms: number;
  readonly maxMs: number;
}

export class LiveMetricsExporter {
  readonly contentType: string = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly #registry = new Registry();
  readonly #shard: string;
  readonly #byIndex: (LiveGroupSeries | undefined)[] = [];
  readonly #groups: LiveGroupSeries[] = [];
  readonly #run: LiveRunFigures;
  #numbers: LiveGroups = () => undefined;

  constructor(options: LiveMetricsExporterOptions) {
    this.#shard = options.shard;
    const labels = { shard: options.shard };
    this.#run = {
      labels,
      infoLabels: { profile: options.profile, version: options.version, shard: options.shard },
      inFlight: 0,
      dropped: 0,
      eventLoopDelayP99S: Number.NaN,
      eventLoopDelayMaxS: Number.NaN,
      ended: 0,
      server: null,
      serverLabels: new ServerEndpointLabels(options.shard),
    };
    const state: LiveState = { groups: this.#groups, run: this.#run, numbers: (index) => this.#numbers(index) };
    for (const family of LIVE_FAMILIES) this.#registry.registerMetric(registeredFamily(family, state));
  }

  /** A scenario starts: its groups are served from now on (zeros until their first request ends). */
  groupsStarting(groups: readonly ResolvedGroup[]): void {
    for (const group of groups) this.#series(group);
  }

  /** The run's collector is made: its groups' counts are what /metrics serves from now on. */
  attach(numbers: LiveGroups): void {
    this.#numbers = numbers;
  }

  /** A request ended: observed into the histograms (warmup ones nowhere, as in summary.json). */
  record(record: RequestRecord, group: ResolvedGroup, values: RecordedValues): void {
    if (record.warmup) return;
    this.#series(group).observe(record, values);
  }

  /**
   * The run's one-second tick: in flight, dropped, the event-loop delay of the second that passed, and the
   * server's latest scrapes (target.server_metrics; absent or null: the run does not scrape).
   */
  tick(snapshot: ProgressSnapshot, eventLoop: EventLoopDelaySample | null, server?: ServerLatest | null): void {
    if (server != null) this.#run.server = server;
    this.#run.inFlight = snapshot.inFlight;
    this.#run.dropped = snapshot.dropped;
    if (eventLoop !== null) {
      this.#run.eventLoopDelayP99S = eventLoop.p99Ms / 1000;
      this.#run.eventLoopDelayMaxS = eventLoop.maxMs / 1000;
    }
  }

  /** The run has ended: nothing is in flight, `dropped` is the summary's total (null: keep the last tick's). */
  end(dropped: number | null): void {
    this.#run.inFlight = 0;
    if (dropped !== null) this.#run.dropped = dropped;
    this.#run.ended = 1;
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  metrics(): Promise<string> {
    return this.#registry.metrics();
  }

  #series(group: ResolvedGroup): LiveGroupSeries {
    let series = this.#byIndex[group.index];
    if (series === undefined) {
      series = new LiveGroupSeries(group.index, groupLabels(group, this.#shard));
      this.#byIndex[group.index] = series;
      this.#groups.push(series);
    }
    return series;
  }
}

/**
 * A family in the shape prom-client's Registry reads (name, help, type, aggregator, get()), so prom-client
 * formats, escapes and serves it while the numbers stay ours. Its own Histogram cannot take counts made
 * elsewhere, hence the cast: the registry calls nothing but these members.
 */
function registeredFamily(family: LiveFamilySpec, state: LiveState): Metric {
  const registered = {
    name: family.name,
    help: family.help,
    type: family.type,
    aggregator: 'sum',
    get: async () => ({ ...registered, values: family.values(state) }),
  };
  return registered as unknown as Metric;
}
