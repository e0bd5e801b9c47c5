/**
 * Validated profile input -> ResolvedProfile: defaults applied, defaults merged into scenarios, durations
 * in milliseconds, relative paths resolved against the profile's folder, thresholds parsed, the matrix
 * expanded. Pure: the caller has already validated `input` and freezes the result.
 */
import { basename, extname, resolve } from 'node:path';
import { parseDurationMs } from '../util/duration.js';
import { type DurationInput, resolveLength } from './field-kinds.js';
import { expandGroups } from './groups.js';
import { mergeScenario } from './merge-scenario.js';
import { parseThreshold } from './parse-threshold.js';
import type { MaxErrorRateInput, ProfileInput, ScenarioFieldsInput, ThresholdInput } from './profile-schema.js';
import type {
  LoadSpec,
  LoadStage,
  MaxErrorRateSpec,
  ResolvedProfile,
  ResolvedScenario,
  ThresholdSpec,
  TlsSpec,
} from './resolved-profile.js';
import { resolveApi, resolveInputsPerRequest } from './sections/api.js';
import { resolveCapacity } from './sections/capacity.js';
import { resolveConversation } from './sections/conversation.js';
import { resolveDataset } from './sections/dataset.js';
import { resolveDeadlines } from './sections/deadlines.js';
import { withGroupDimensions } from './sections/dimensions.js';
import { resolveImages } from './sections/images.js';
import { resolveLive } from './sections/live.js';
import { resolveModels } from './sections/models.js';
import { resolvePrefixes } from './sections/prefixes.js';
import { resolvePricing } from './sections/pricing.js';
import { resolveServerMetrics } from './sections/server-metrics.js';
import { sweepPhases, THROUGHPUT_CONCURRENCY } from './sections/sweep.js';
import { resolveTraceLoad } from './sections/trace/trace.js';
import { createTraceReader, type TraceReader } from './sections/trace/trace-file.js';

/** Defaults of DESIGN.md and the profile reference (docs/profiles.md), in one place. */
export const PROFILE_DEFAULTS = {
  apiKeyEnv: 'INFERENCE_API_KEY',
  managementKeyEnv: 'INFERENCE_MANAGEMENT_KEY',
  inputTokens: 128,
  stream: true,
  streamUsage: true,
  requestIdHeader: 'x-request-id',
  traceContext: true,
  concurrency: 1,
  arrival: 'poisson',
  burstiness: 1,
  maxConcurrency: 1000,
  gracefulStopMs: 30_000,
  timeouts: { connectMs: 10_000, headersMs: 60_000, firstTokenMs: 60_000, idleMs: 30_000, totalMs: 600_000 },
  retryOn: ['http_429', 'http_5xx', 'connect', 'reset'],
  retryBackoffMs: 500,
  seed: 1,
  /** max_error_rate applies once a group has this many ended requests (ok + failed). */
  maxErrorRateMinRequests: 20,
} as const;

const ms = (value: DurationInput | undefined, fallback: number): number =>
  value === undefined ? fallback : (parseDurationMs(value) as number);

/** `traces` reads the files of trace replays (the checks' reader, so each file is read once). */
export function resolveProfileInput(
  input: ProfileInput,
  sourceName: string | null,
  baseDir: string,
  traces: TraceReader = createTraceReader(),
): ResolvedProfile {
  const scenarios = input.scenarios.flatMap((scenario, i) => {
    const merged = mergeScenario(input.defaults, scenario, i).fields as ScenarioFieldsInput;
    const streamUsage = input.target?.stream_usage ?? PROFILE_DEFAULTS.streamUsage;
    const resolveFields = (fields: ScenarioFieldsInput) =>
      resolveScenario(scenario.name, fields, baseDir, streamUsage, traces);
    const resolved = withGroupDimensions(resolveFields(merged), merged, resolveFields);
    return sweepPhases(resolved, merged.load?.mode === 'sweep' ? (merged.load.steps ?? 3) : null);
  });
  const thresholds = (input.thresholds ?? []).map(resolveThreshold) satisfies ThresholdSpec[];
  const target = input.target ?? {};
  return {
    name: input.name ?? (sourceName ? basename(sourceName, extname(sourceName)) : 'profile'),
    sourcePath: sourceName,
    target: {
      baseUrl: target.base_url === undefined ? null : target.base_url.replace(/\/+$/, '').replace(/\/v1$/, ''),
      apiKeyEnv: target.api_key_env ?? PROFILE_DEFAULTS.apiKeyEnv,
      managementKeyEnv: target.management_key_env ?? PROFILE_DEFAULTS.managementKeyEnv,
      headers: Object.fromEntries(Object.entries(target.headers ?? {}).map(([k, v]) => [k, String(v)])),
      emulatorConfig: target.emulator_config === undefined ? null : resolve(baseDir, target.emulator_config),
      tls: resolveTls(target.tls, baseDir),
      streamUsage: target.stream_usage ?? PROFILE_DEFAULTS.streamUsage,
      requestIdHeader:
        target.request_id_header === false ? null : (target.request_id_header ?? PROFILE_DEFAULTS.requestIdHeader),
      traceContext: target.trace_context ?? PROFILE_DEFAULTS.traceContext,
      tokenizer: target.tokenizer === undefined ? null : resolve(baseDir, target.tokenizer),
      // Only when set: profiles without it resolve (and are recorded in summary.json) as before.
      ...resolveServerMetrics(input.target?.server_metrics),
    },
    scenarios,
    groups: expandGroups(scenarios),
    thresholds,
    // Only when set: profiles without it resolve (and are recorded in summary.json) as before.
    ...(input.fail_on_invalid === undefined ? {} : { failOnInvalid: input.fail_on_invalid }),
    ...(input.stop_when_decided === undefined ? {} : { stopWhenDecided: input.stop_when_decided }),
    slo: { ...(input.slo ?? {}) },
    compare: { tolerances: { ...(input.compare?.tolerances ?? {}) } },
    capacity: resolveCapacity(input.capacity, input.slo ?? {}),
    deadlines: resolveDeadlines(input.deadlines),
    ...resolvePricing(input.pricing),
    ...resolveLive(input.live),
  };
}

/** A threshold string or object -> its spec; abort_on_fail adds when it may first stop the run. */
function resolveThreshold(input: ThresholdInput): ThresholdSpec {
  const expression = typeof input === 'string' ? input : input.threshold;
  const parsed = parseThreshold(expression);
  if (!parsed.ok) throw new Error(`unchecked threshold: ${parsed.message}`);
  if (typeof input === 'string' || input.abort_on_fail !== true) return parsed.spec;
  return { ...parsed.spec, abortOnFail: { delayMs: ms(input.delay_abort_eval, 0) } };
}

/** max_error_rate in its short ("50%", 0.5) or long ({ rate, min_requests, delay_abort_eval }) form. */
function resolveMaxErrorRate(input: MaxErrorRateInput | undefined): { maxErrorRate?: MaxErrorRateSpec } {
  if (input === undefined) return {};
  const long = typeof input === 'object' ? input : { rate: input };
  const rate = typeof long.rate === 'number' ? long.rate : Number.parseFloat(long.rate) / 100;
  return {
    maxErrorRate: {
      rate,
      minRequests: long.min_requests ?? PROFILE_DEFAULTS.maxErrorRateMinRequests,
      delayMs: ms(long.delay_abort_eval, 0),
    },
  };
}

/** target.tls with its PEM paths resolved against the profile's folder (the files are read by the client). */
function resolveTls(tls: NonNullable<ProfileInput['target']>['tls'], baseDir: string): TlsSpec | null {
  if (tls === undefined) return null;
  const path = (file: string | undefined): string | null => (file === undefined ? null : resolve(baseDir, file));
  return {
    caPath: path(tls.ca),
    certPath: path(tls.cert),
    keyPath: path(tls.key),
    insecureSkipVerify: tls.insecure_skip_verify ?? false,
  };
}

/**
 * The request fields of a scenario: stream on unless turned off, and a stream asks for usage
 * (`stream_options.include_usage`) unless the profile set stream_options itself or the target turns it
 * off: vLLM, SGLang, llama.cpp and OpenAI send no usage in a stream otherwise, and counting tokens with
 * another tokenizer than the model's is only an estimate.
 */
function resolveRequest(fields: Record<string, unknown>, streamUsage: boolean): Record<string, unknown> {
  const request: Record<string, unknown> = { stream: PROFILE_DEFAULTS.stream, ...fields };
  if (request.stream === true && streamUsage && request.stream_options === undefined)
    request.stream_options = { include_usage: true };
  return request;
}

function resolveScenario(
  name: string,
  f: ScenarioFieldsInput,
  baseDir: string,
  streamUsage: boolean,
  traces: TraceReader,
): ResolvedScenario {
  const load = f.load?.mode === 'trace' ? resolveTraceLoad(f.load, baseDir, traces) : resolveLoad(f.load);
  const stageTotalMs = load.stages?.reduce((sum, stage) => sum + stage.durationMs, 0) ?? null;
  const prompt = f.prompt ?? {};
  const { model: _model, messages: _messages, service_tier: _tier, ...request } = f.request ?? {};
  const timeouts = f.timeouts ?? {};
  const defaultsT = PROFILE_DEFAULTS.timeouts;
  return {
    name,
    // Only when not chat: profiles without it resolve (and hash) as before.
    ...resolveApi(f.api),
    ...resolveInputsPerRequest(f.inputs_per_request),
    ...resolveModels(f.models),
    tiers: [...(f.tiers ?? [])],
    load,
    durationMs: f.duration !== undefined ? ms(f.duration, 0) : stageTotalMs,
    requests: f.requests ?? null,
    warmupMs: ms(f.warmup, 0),
    warmupRequests: f.warmup_requests ?? 0,
    gracefulStopMs: ms(f.graceful_stop, PROFILE_DEFAULTS.gracefulStopMs),
    request: resolveRequest(request, streamUsage),
    requestExtra: { ...(f.request_extra ?? {}) },
    prompt: {
      inputTokens: resolveLength(prompt.input_tokens ?? PROFILE_DEFAULTS.inputTokens),
      outputTokens: prompt.output_tokens === undefined ? null : resolveLength(prompt.output_tokens),
      sharedPrefixTokens: prompt.shared_prefix_tokens ?? 0,
      system: prompt.system ?? null,
      // Only when set: the workload hashes of profiles without it stay what they were.
      ...resolvePrefixes(prompt.prefixes),
      dataset: prompt.dataset ? resolveDataset(prompt.dataset, baseDir) : null,
      ...resolveImages(prompt.images),
    },
    timeouts: {
      connectMs: ms(timeouts.connect, defaultsT.connectMs),
      headersMs: ms(timeouts.headers, defaultsT.headersMs),
      firstTokenMs: ms(timeouts.first_token, defaultsT.firstTokenMs),
      idleMs: ms(timeouts.idle, defaultsT.idleMs),
      totalMs: ms(timeouts.total, defaultsT.totalMs),
    },
    retry: {
      maxAttempts: f.retry?.max_attempts ?? 1,
      on: [...(f.retry?.on ?? PROFILE_DEFAULTS.retryOn)],
      backoffMs: ms(f.retry?.backoff, PROFILE_DEFAULTS.retryBackoffMs),
    },
    encoding: { contentType: f.encoding?.content_type ?? 'json', gzip: f.encoding?.gzip ?? false },
    seed: f.seed ?? PROFILE_DEFAULTS.seed,
    // Only when set: profiles without it resolve (and are recorded in summary.json) as before.
    ...resolveMaxErrorRate(f.max_error_rate),
    // Only when set, likewise: session and tool_loop (sections/conversation.ts).
    ...resolveConversation(f, resolveLength(prompt.input_tokens ?? PROFILE_DEFAULTS.inputTokens)),
  };
}

function resolveLoad(load: ScenarioFieldsInput['load']): LoadSpec {
  const l = load ?? {};
  // As fast as the server takes: every request starts the moment one ends, up to max_concurrency.
  if (l.mode === 'throughput')
    return { mode: 'concurrency', concurrency: l.max_concurrency ?? THROUGHPUT_CONCURRENCY, stages: null };
  // A sweep's phases are made from the open-loop settings (sections/sweep.ts).
  const mode =
    // (mode trace is resolved by sections/trace/trace.ts; here it would be an open loop.)
    l.mode === 'sweep' || l.mode === 'trace'
      ? 'rate'
      : (l.mode ?? (l.rate !== undefined || l.arrival !== undefined ? 'rate' : 'concurrency'));
  const stages: LoadStage[] | null = l.stages
    ? l.stages.map((stage) => ({
        durationMs: ms(stage.duration, 0),
        target: (mode === 'rate' ? stage.rate : stage.concurrency) ?? 0,
        ramp: stage.ramp ?? 'linear',
      }))
    : null;
  const peak = stages ? Math.max(...stages.map((stage) => stage.target)) : undefined;
  if (mode === 'concurrency') {
    return { mode, concurrency: l.concurrency ?? peak ?? PROFILE_DEFAULTS.concurrency, stages };
  }
  return {
    mode,
    rate: l.rate ?? peak ?? 0,
    arrival: l.arrival ?? PROFILE_DEFAULTS.arrival,
    burstiness: l.burstiness ?? PROFILE_DEFAULTS.burstiness,
    maxConcurrency:
      l.max_concurrency ?? (l.mode === 'sweep' ? THROUGHPUT_CONCURRENCY : PROFILE_DEFAULTS.maxConcurrency),
    stages,
  };
}
