/**
 * The runner's accuracy benchmark (`npm run bench accuracy`): the real runner (workload, schedule,
 * client, collector) against the known-timing server (first token T ms after a request arrives, then a
 * token every I ms, known usage and time_info), at concurrency 4 and 256. It compares what inferbench
 * reports (summary medians, from the HDR histograms) with what the server really did, checks token counts
 * are exact and time_info passes through exactly.
 *
 * What the server really did is taken on the wire's terms, request by request: from the moment the client
 * wrote the request to its socket to the moment the server wrote the first token (TTFT) or the final chunk
 * (E2E), both on the machine's monotonic clock (the server traces each request with its body, the client's
 * records are matched to them by body). The server's own view (from when its event loop noticed the
 * request) leaves out the time a request waits in the server's socket while the server is busy: a real
 * part of what the server did to that request, and no error of the client's. Both views are printed.
 *
 * The server runs in a child process, as a real server would: the client's work does not delay the
 * server's writes and the server's timers do not delay the client's reads; they share only the machine.
 */
import { isDeepStrictEqual } from 'node:util';
import { resolveProfileText } from '../profile/load-profile.js';
import { runProfile } from '../runner/run-profile.js';
import { systemClock } from '../util/clock.js';
import { inferbenchVersion } from '../cli/version.js';
import type { TimeInfo } from '../protocol/chat.js';
import type { RequestRecord } from '../client/request-record.js';
import { bodyNotingDeps } from './accuracy-body-noting.js';
import { median, quantile } from './accuracy-quantiles.js';
import { ServerProcess } from './accuracy-server.js';
import { monotonicOffsetMs, type RequestTrace } from './known-timing-stats.js';
import type { BenchContext, BenchOutcome, BenchRow, Benchmark } from './benchmark.js';

const TTFT_MS = 50;
const ITL_MS = 10;
const TOKENS = 32;
/** Distinct, non-round values, so that a unit slip or a rounding in the pass-through shows. */
const TIME_INFO: TimeInfo = {
  queue_time: 0.012345,
  prompt_time: 0.037655,
  completion_time: 0.31,
  total_time: 0.36,
  created: 1_767_225_600.123456,
};
/**
 * Closed loop at 4 and 256 (the brief's levels; at 256 every stream starts, and so ends, in lockstep, so
 * client and server handle 256 events at once), and an open loop whose constant arrivals keep ~256
 * streams in flight spread evenly over time (rate x e2e = 700/s x 0.36 s).
 */
const LEVELS = [
  { label: 'closed 4', concurrency: 4, load: '{ mode: concurrency, concurrency: 4 }', requests: 200, warmup: 8 },
  {
    label: 'closed 256',
    concurrency: 256,
    load: '{ mode: concurrency, concurrency: 256 }',
    requests: 2048,
    warmup: 512,
  },
  {
    label: 'open ~256',
    concurrency: 256,
    load: '{ mode: rate, rate: 700, arrival: constant, max_concurrency: 1024 }',
    requests: 2048,
    warmup: 256,
  },
] as const;

type Level = (typeof LEVELS)[number];
/** The brief's bound: reported medians within 1 ms of what the server did. */
const TOLERANCE_MS = 1;

function profileText(url: string, level: Level): string {
  return `
name: accuracy
target: { base_url: "${url}" }
scenarios:
  - name: accuracy
    models: [known-timing]
    load: ${level.load}
    requests: ${level.requests}
    warmup_requests: ${level.warmup}
    request: { max_completion_tokens: ${TOKENS} }
    prompt: { input_tokens: 16 }
`;
}

interface PassThroughCheck {
  /** The measured (not warmup) records, with the bodies they were sent with. */
  readonly records: { record: RequestRecord; body: unknown }[];
  requests: number;
  tokenCountWrong: number;
  tokenChunksWrong: number;
  timeInfoWrong: number;
  failed: number;
}

/** Per matched request, ms: the wire truth and where the client's numbers part from it. */
interface WireView {
  matched: number;
  readonly ttftMs: number[];
  readonly e2eMs: number[];
  /** Client's launch -> its socket write (schedule lag). */
  readonly launchToSendMs: number[];
  /** Socket write -> the server's event loop noticed the request. */
  readonly sendToNoticedMs: number[];
  /** Server wrote the first token / final chunk -> the client's stamp of its arrival. */
  readonly firstTokenReadMs: number[];
  readonly finalReadMs: number[];
}

function wireView(check: PassThroughCheck, traces: readonly RequestTrace[], clientOffsetMs: number): WireView {
  const byBody = new Map<string, RequestTrace | null>();
  // A body seen twice cannot tell its requests apart: neither is used.
  for (const trace of traces) byBody.set(trace.body, byBody.has(trace.body) ? null : trace);
  const view: WireView = {
    matched: 0,
    ttftMs: [],
    e2eMs: [],
    launchToSendMs: [],
    sendToNoticedMs: [],
    firstTokenReadMs: [],
    finalReadMs: [],
  };
  for (const { record, body } of check.records) {
    const trace = byBody.get(JSON.stringify(body));
    if (trace === undefined || trace === null || record.errorClass !== null) continue;
    view.matched++;
    const at = (us: number): number => us / 1000 + clientOffsetMs;
    const sentAtMs = at(record.sentUs);
    view.ttftMs.push(trace.firstTokenWrittenAtMs - sentAtMs);
    view.e2eMs.push(trace.finalWrittenAtMs - sentAtMs);
    view.launchToSendMs.push((record.sentUs - record.launchUs) / 1000);
    view.sendToNoticedMs.push(trace.arrivedAtMs - sentAtMs);
    view.firstTokenReadMs.push(at(record.firstTokenUs) - trace.firstTokenWrittenAtMs);
    view.finalReadMs.push(at(record.endUs) - trace.finalWrittenAtMs);
  }
  return view;
}

async function runLevel(server: ServerProcess, url: string, level: Level, ctx: BenchContext) {
  const { requests, warmup } = level;
  // Warmup inside the run opens the pool's connections and warms the JIT. Every warmup request ends
  // before the first measured one starts, so the server's first `warmup` answers (and their
  // warmup x (tokens - 1) gaps) are the warmup's and are left out of the server's own view.
  await server.reset();
  const check: PassThroughCheck = {
    records: [],
    requests: 0,
    tokenCountWrong: 0,
    tokenChunksWrong: 0,
    timeInfoWrong: 0,
    failed: 0,
  };
  const bodies = new Map<RequestRecord, unknown>();
  ctx.log(`${level.label}: ${warmup} warmup + ${requests} measured requests`);
  const result = await runProfile({
    profile: resolveProfileText(profileText(url, level), 'accuracy.yaml'),
    target: { baseUrl: url, apiKey: null },
    control: { interrupt: new AbortController().signal },
    env: {
      clock: systemClock,
      cpuProbe: () => process.cpuUsage(),
      version: inferbenchVersion(),
      deps: bodyNotingDeps(bodies),
      events: { onRecord: (record) => !record.warmup && checkRecord(record, bodies.get(record), check) },
    },
  });
  const all = await server.stats();
  const wire = wireView(check, all.traces, monotonicOffsetMs());
  const serverView = {
    ttftMs: all.ttftMs.slice(warmup),
    e2eMs: all.e2eMs.slice(warmup),
    itlMs: all.itlMs.slice(warmup * (TOKENS - 1)),
    lateMs: all.lateMs.slice(warmup * TOKENS),
  };
  const group = result.groups[0];
  if (!group) throw new Error('the accuracy run produced no group');
  const reported = {
    ttft: group.metrics.ttft_ms?.p50 ?? Number.NaN,
    itl: group.metrics.itl_ms?.p50 ?? Number.NaN,
    e2e: group.metrics.e2e_ms?.p50 ?? Number.NaN,
  };
  // ITL does not depend on where a request starts: the server's own gaps between its writes.
  const truth = { ttft: median(wire.ttftMs), itl: median(serverView.itlMs), e2e: median(wire.e2eMs) };
  const outputTokens = group.metrics.output_tokens;
  return {
    label: level.label,
    requests,
    reported,
    truth,
    check,
    wire,
    serverView,
    maxActive: all.maxActive,
    group,
    harness: result.harness,
    outputTokens,
  };
}

function checkRecord(record: RequestRecord, body: unknown, check: PassThroughCheck): void {
  check.requests++;
  check.records.push({ record, body });
  if (record.errorClass !== null) {
    check.failed++;
    return;
  }
  if (record.usage?.completion_tokens !== TOKENS) check.tokenCountWrong++;
  if (record.tokenChunkTimesUs.length !== TOKENS) check.tokenChunksWrong++;
  if (!isDeepStrictEqual(record.timeInfo, TIME_INFO)) check.timeInfoWrong++;
}

/** What one level measured (runLevel's result). */
type LevelResult = Awaited<ReturnType<typeof runLevel>>;

async function runAccuracy(ctx: BenchContext): Promise<BenchOutcome> {
  const server = new ServerProcess({
    ttftMs: TTFT_MS,
    itlMs: ITL_MS,
    tokens: TOKENS,
    timeInfo: TIME_INFO,
    model: 'known-timing',
    traceRequests: true,
  });
  const url = await server.url();
  const levels: LevelResult[] = [];
  try {
    for (const level of LEVELS) levels.push(await runLevel(server, url, level, ctx));
  } finally {
    await server.close();
  }
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  let allPass = true;
  for (const level of levels) {
    const medians = medianRows(level);
    rows.push(...medians.rows);
    allPass &&= medians.pass;
    allPass &&= countsExact(level);
    notes.push(levelNote(level));
  }
  notes.push(
    allPass
      ? 'PASS: every median within 1 ms of the server, counts and time_info exact'
      : 'FAIL: see the rows marked NO and the counts above',
  );
  return {
    rows,
    notes,
    json: {
      settings: {
        ttftMs: TTFT_MS,
        itlMs: ITL_MS,
        tokens: TOKENS,
        timeInfo: TIME_INFO,
        toleranceMs: TOLERANCE_MS,
        levels: LEVELS,
      },
      pass: allPass,
      levels: levels.map(levelJson),
    },
  };
}

/** One row per metric: the reported median against the wire truth, and whether it is within the tolerance. */
function medianRows(level: LevelResult): { rows: BenchRow[]; pass: boolean } {
  const rows: BenchRow[] = [];
  let pass = true;
  for (const metric of ['ttft', 'itl', 'e2e'] as const) {
    const diff = level.reported[metric] - level.truth[metric];
    const within = Math.abs(diff) <= TOLERANCE_MS;
    pass &&= within;
    rows.push({
      load: level.label,
      metric: `${metric}_ms p50`,
      nominal: metric === 'ttft' ? TTFT_MS : metric === 'itl' ? ITL_MS : TTFT_MS + (TOKENS - 1) * ITL_MS,
      'server (wire)': round(level.truth[metric]),
      reported: round(level.reported[metric]),
      diff: round(diff),
      within_1ms: within ? 'yes' : 'NO',
    });
  }
  return { rows, pass };
}

/** Every request answered and matched to a trace, with exact token counts and time_info. */
function countsExact(level: LevelResult): boolean {
  const c = level.check;
  return (
    c.failed === 0 &&
    c.tokenCountWrong === 0 &&
    c.tokenChunksWrong === 0 &&
    c.timeInfoWrong === 0 &&
    c.requests === level.requests &&
    level.wire.matched === level.requests
  );
}

/** The level's counts and where the time went, in one line. */
function levelNote(level: LevelResult): string {
  const c = level.check;
  const w = level.wire;
  const tokens = level.outputTokens;
  return (
    `${level.label}: ${c.requests} requests, ${w.matched} matched to the server's traces (server max in flight ${level.maxActive}), ${c.failed} failed; ` +
    `p50 launch -> socket write ${round(median(w.launchToSendMs))} ms (schedule lag; in latency only in open loop), ` +
    `socket write -> server noticed it ${round(median(w.sendToNoticedMs))} ms (p90 ${round(quantile(w.sendToNoticedMs, 0.9))}), ` +
    `token written -> client stamp: first ${round(median(w.firstTokenReadMs))} ms, final ${round(median(w.finalReadMs))} ms; ` +
    `the server's own view (from noticing): TTFT ${round(median(level.serverView.ttftMs))} ms, E2E ${round(median(level.serverView.e2eMs))} ms; ` +
    `usage.completion_tokens wrong in ${c.tokenCountWrong}, token chunks wrong in ${c.tokenChunksWrong}, ` +
    `time_info not passed through exactly in ${c.timeInfoWrong}; output_tokens min/max ${tokens?.min}/${tokens?.max}; ` +
    `server lateness p50 ${round(median(level.serverView.lateMs))} ms; harness: event-loop delay p99 ${level.harness.event_loop_delay_ms.p99} ms, ` +
    `schedule lag p99 ${level.harness.schedule_lag_ms.p99} ms, CPU ${level.harness.cpu_utilization}`
  );
}

/** The level in the benchmark's JSON. */
function levelJson(level: LevelResult) {
  return {
    load: level.label,
    requests: level.requests,
    server_max_in_flight: level.maxActive,
    reported_p50_ms: level.reported,
    server_wire_p50_ms: level.truth,
    server_own_view_p50_ms: { ttft: median(level.serverView.ttftMs), e2e: median(level.serverView.e2eMs) },
    matched_to_server_traces: level.wire.matched,
    breakdown_p50_ms: {
      launch_to_send: median(level.wire.launchToSendMs),
      send_to_server_noticed: median(level.wire.sendToNoticedMs),
      send_to_server_noticed_p90: quantile(level.wire.sendToNoticedMs, 0.9),
      first_token_written_to_client_stamp: median(level.wire.firstTokenReadMs),
      final_written_to_client_stamp: median(level.wire.finalReadMs),
    },
    pass_through: {
      requests: level.check.requests,
      failed: level.check.failed,
      token_count_wrong: level.check.tokenCountWrong,
      token_chunks_wrong: level.check.tokenChunksWrong,
      time_info_wrong: level.check.timeInfoWrong,
    },
    server_lateness_p50_ms: median(level.serverView.lateMs),
    harness: level.harness,
    group_metrics: level.group.metrics,
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const accuracyBenchmark: Benchmark = {
  description: `runner accuracy against a known-timing server (TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${TOKENS} tokens): closed loop 4 and 256, open loop ~256 in flight`,
  run: runAccuracy,
};
