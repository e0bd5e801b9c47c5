/**
 * The frozen result of loading a profile: validated, defaulted, durations in milliseconds, the matrix
 * expanded into groups. Everything after profile/ reads only this, never the YAML.
 */
import type { ApiKind } from '../protocol/apis.js';
import type { ReasoningEffort, ServiceTier } from '../protocol/chat.js';
import type { ImageDetail } from '../protocol/image-tokens.js';
import type { PublicModelCapability } from '../protocol/models.js';

/** A length in tokens: fixed, or drawn per request from a seeded distribution (clamped to [min, max]). */
export type LengthDistribution =
  | { readonly dist: 'fixed'; readonly value: number }
  | { readonly dist: 'uniform'; readonly min: number; readonly max: number }
  | {
      readonly dist: 'normal' | 'lognormal';
      readonly mean: number;
      readonly stddev: number;
      readonly min: number;
      readonly max: number;
    };

export interface PromptSpec {
  /** Prompt length in tokens (the user message; the system prompt and shared prefix come on top). */
  readonly inputTokens: LengthDistribution;
  /** When set, each request's max_completion_tokens is drawn from it (overrides request.max_completion_tokens). */
  readonly outputTokens: LengthDistribution | null;
  /** Tokens of a prefix shared by every request of the scenario (prompt-cache workloads). */
  readonly sharedPrefixTokens: number;
  /** A fixed system message, or null. */
  readonly system: string | null;
  /** `prompt.prefixes`: N shared prefixes of K tokens, one per request with probability `share`; absent when not set. */
  readonly prefixes?: PrefixesSpec;
  /** Prompts from a dataset file (OpenAI-style JSONL or ShareGPT) instead of synthetic text. */
  readonly dataset: DatasetSpec | null;
  /** `prompt.images`: synthetic images added to each request's user message; absent when the prompt has none. */
  readonly images?: readonly ImageSpec[];
}

/** `prompt.images` (profile/sections/images.ts). */
export type ImageFormat = 'png' | 'jpeg';

/** One kind of image of `prompt.images`, resolved. */
export interface ImageSpec {
  readonly width: number;
  readonly height: number;
  readonly format: ImageFormat;
  /** Sent as image_url.detail; null: not sent (the server's default, auto). */
  readonly detail: ImageDetail | null;
  /** Images of this kind in each request. */
  readonly count: number;
  /** Distinct images of this kind made at workload build; each request picks among them (seeded). */
  readonly variants: number;
}

/** `prompt.prefixes`, resolved (profile/sections/prefixes.ts). */
export interface PrefixesSpec {
  readonly groups: number;
  readonly tokens: number;
  /** Fraction of requests (0..1) that use a prefix. */
  readonly share: number;
  /** Send prompt_cache_key with requests that use a prefix. */
  readonly cacheKey: boolean;
}

/** `prompt.dataset`, resolved: the file (absolute), its format, filters by token length, and sampling. */
export interface DatasetSpec {
  readonly path: string;
  /** openai format: the field of an object line holding the prompt text or messages. */
  readonly field: string;
  readonly format: 'auto' | 'openai' | 'sharegpt';
  /** `dataset`: max_completion_tokens is each entry's answer length; `prompt`: prompt.outputTokens. */
  readonly outputTokens: 'dataset' | 'prompt';
  /** Token bounds of the prompt as sent (and of the answer, with outputTokens `dataset`); null = none. */
  readonly minInputTokens: number | null;
  readonly maxInputTokens: number | null;
  readonly minOutputTokens: number | null;
  readonly maxOutputTokens: number | null;
  readonly sample: 'cycle' | 'with_replacement' | 'without_replacement';
  /** Keep only the first N entries left after filtering (file order); null = all. */
  readonly limit: number | null;
}

export interface LoadStage {
  readonly durationMs: number;
  /** Requests/s (rate mode) or concurrent requests (concurrency mode) at the end of the stage. */
  readonly target: number;
  /** `linear` ramps from the previous stage's target; `step` holds this target for the whole stage. */
  readonly ramp: 'linear' | 'step';
}

export type LoadSpec =
  | { readonly mode: 'concurrency'; readonly concurrency: number; readonly stages: readonly LoadStage[] | null }
  | {
      readonly mode: 'rate';
      /** Requests per second (ignored when stages are given). */
      readonly rate: number;
      readonly arrival: 'constant' | 'poisson' | 'gamma';
      /** Gamma shape: < 1 bursty, 1 = Poisson, > 1 regular. */
      readonly burstiness: number;
      /** Ceiling on requests in flight; arrivals beyond it are counted as dropped. */
      readonly maxConcurrency: number;
      readonly stages: readonly LoadStage[] | null;
      /** `mode: trace`: arrivals and lengths from a trace file (rate is then its mean rate); absent otherwise. */
      readonly trace?: TraceSpec;
    };

/** The trace formats of `load: { mode: trace }` (profile/sections/trace/trace-file.ts). */
export type TraceFormat = 'inferbench' | 'mooncake' | 'burstgpt';
export type TimestampUnit = 'ms' | 's';

/** The records a replay sends, in order: offsets from the replay's start (trace ms, unscaled) and lengths. */
export interface ParsedTrace {
  readonly format: TraceFormat;
  readonly timestampUnit: TimestampUnit;
  readonly count: number;
  readonly offsetsMs: Float64Array;
  readonly inputTokens: Uint32Array;
  readonly outputTokens: Uint32Array;
}

/** A trace file's records and its content hash, read once when the profile is resolved. */
export interface TraceRecords extends ParsedTrace {
  /** SHA-256 of the file's bytes (the workload hash's view of it). */
  readonly sha256: string;
}

/** `load` of a trace replay as resolved: the rest of an open loop (max_concurrency, drops) applies. */
export interface TraceSpec {
  /** Absolute path of the trace file. */
  readonly path: string;
  /** `auto`: from the fields of the first record. */
  readonly format: TraceFormat | 'auto';
  /** null: the format's unit (ms for inferbench and mooncake, s for burstgpt). */
  readonly timestampUnit: TimestampUnit | null;
  /** Replay speed: 2 replays twice as fast (offsets divided by it). */
  readonly timeScale: number;
  /** Trace time (ms from the first record) at which the replay starts; earlier records are skipped. */
  readonly startMs: number;
  /** Set by sharding (schedule/shard.ts): this share replays records index-1, index-1+count, ... */
  readonly shard?: { readonly index: number; readonly count: number };
  /**
   * The file's records from startMs on (before sharding), read when the profile was resolved: the schedule
   * and the workload read these, never the file. Left out of summary.json and `validate --json`
   * (recordedProfile in profile/sections/trace/trace.ts); typed arrays, so a worker thread gets a copy.
   */
  readonly records: TraceRecords;
}

export interface TimeoutSpec {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly firstTokenMs: number;
  readonly idleMs: number;
  readonly totalMs: number;
}

export interface RetrySpec {
  /** 1 = no retries. A retried request is measured from its start to its final attempt's events; failed attempts are counted apart. */
  readonly maxAttempts: number;
  /** Retry only on these classes (default: http_429, http_5xx, connect, reset). */
  readonly on: readonly string[];
  readonly backoffMs: number;
}

export interface EncodingSpec {
  readonly contentType: 'json' | 'msgpack';
  readonly gzip: boolean;
}

/** Which of the target's models a scenario runs, asked of the target when the run starts (profile/sections/models.ts). */
export type ModelSelector =
  | { readonly kind: 'all' }
  | { readonly kind: 'capability'; readonly capabilities: readonly PublicModelCapability[] }
  | { readonly kind: 'endpoints_of'; readonly org: string };

export interface ResolvedScenario {
  readonly name: string;
  /** `api:` the API its requests speak (profile/sections/api.ts); absent: chat. */
  readonly api?: ApiKind;
  /** `inputs_per_request` (api: embeddings): prompts per request; absent: one. */
  readonly inputsPerRequest?: number;
  /**
   * Empty: the target's first model, resolved at run time from GET /v1/models, or the models of
   * `modelSelector` once the run resolved it (sorted by id).
   */
  readonly models: readonly string[];
  /** `models: all | { capability } | { endpoints_of }`: resolved from the target when the run starts; absent for a list. */
  readonly modelSelector?: ModelSelector;
  /** Empty: no service_tier sent. */
  readonly tiers: readonly ServiceTier[];
  readonly load: LoadSpec;
  /** At least one of durationMs and requests is set; both: whichever comes first. */
  readonly durationMs: number | null;
  readonly requests: number | null;
  readonly warmupMs: number;
  readonly warmupRequests: number;
  /** Time allowed to requests still in flight when the scenario ends, before they are aborted. */
  readonly gracefulStopMs: number;
  /**
   * Chat completion fields of the spec merged over defaults.request (never model or messages); with
   * stream, `stream_options: { include_usage: true }` unless the profile set it or target.stream_usage is false.
   */
  readonly request: Readonly<Record<string, unknown>>;
  /** Fields the spec does not list (request_extra, merged over defaults.request_extra), sent after `request`. */
  readonly requestExtra: Readonly<Record<string, unknown>>;
  readonly prompt: PromptSpec;
  readonly timeouts: TimeoutSpec;
  readonly retry: RetrySpec;
  readonly encoding: EncodingSpec;
  readonly seed: number;
  /** `max_error_rate`: stop the run when a group of this scenario only produces errors; absent: never. */
  readonly maxErrorRate?: MaxErrorRateSpec;
  /**
   * A rate phase of a sweep (profile/sections/sweep.ts): its rate is set when it starts, at `index` of
   * `steps + 1` between the measured rates of `<source>.sync` and `<source>.throughput`. Absent otherwise.
   */
  readonly sweep?: { readonly source: string; readonly index: number; readonly steps: number };
  /** `session:` multi-turn sessions (workload/conversation.ts); absent: one request per arrival. */
  readonly session?: SessionSpec;
  /** `tool_loop:` answer tool calls with synthetic results and ask again; absent: no follow-ups. */
  readonly toolLoop?: ToolLoopSpec;
  /** `reasoning_efforts`: one group per model x tier x effort, each sending its reasoning_effort; absent: none. */
  readonly reasoningEfforts?: readonly ReasoningEffort[];
  /** `mix`: weighted request classes sharing the scenario's load, each its own group; absent: no mix. */
  readonly mix?: readonly MixClassSpec[];
}

/**
 * One class of a scenario's `mix`: its prompt, request and request_extra merged over the scenario's one
 * level deep (as defaults merge into scenarios), and its share of the requests.
 */
export interface MixClassSpec {
  readonly name: string;
  /** The class's weight divided by the sum of the mix's weights: its share, 0..1. */
  readonly share: number;
  readonly prompt: PromptSpec;
  readonly request: Readonly<Record<string, unknown>>;
  readonly requestExtra: Readonly<Record<string, unknown>>;
  /** The scenario's session with the class's prompt (a later user turn defaults to its input_tokens); only with a session. */
  readonly session?: SessionSpec;
}

/** A think time in ms: fixed, or drawn per turn from a seeded distribution (clamped to [0, max]). */
export type ThinkTimeDistribution =
  | { readonly dist: 'fixed'; readonly valueMs: number }
  | { readonly dist: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly dist: 'exponential'; readonly meanMs: number; readonly maxMs: number }
  | { readonly dist: 'lognormal'; readonly meanMs: number; readonly stddevMs: number; readonly maxMs: number };

/** `session:`, resolved (profile/sections/conversation.ts). */
export interface SessionSpec {
  /** User turns per session; null: a dataset conversation's own count (turns omitted with prompt.dataset). */
  readonly turns: LengthDistribution | null;
  /** Wait between an answer and the next user turn. */
  readonly thinkTime: ThinkTimeDistribution;
  /** Tokens of each user message from turn 2 on. */
  readonly userTokens: LengthDistribution;
}

/** `tool_loop:`, resolved. */
export interface ToolLoopSpec {
  /** Follow-up requests carrying tool results, per user turn. */
  readonly maxRounds: number;
  /** Tokens of each synthetic tool result. */
  readonly resultTokens: number;
}

/**
 * `max_error_rate`: the run stops (exit 3) when a group's error_rate (failed / (ok + failed), as in
 * summary.json) exceeds `rate`, once it has `minRequests` ended requests and `delayMs` of its measured part
 * have passed.
 */
export interface MaxErrorRateSpec {
  /** A fraction, 0..1. */
  readonly rate: number;
  readonly minRequests: number;
  readonly delayMs: number;
}

/** A threshold's `abort_on_fail`: checked during the run once `delayMs` of a group's measured part passed. */
export interface AbortOnFailSpec {
  /** `delay_abort_eval` in ms (k6's delayAbortEval), from the start of the group's measured part. */
  readonly delayMs: number;
}

/**
 * "ttft_ms.p99 < 800", "error_rate < 0.01", "output_tokens_per_s >= 100", "steady/model-a/flex: e2e_ms.p50 < 2000".
 * metric is a metric of summary.json (`ttft_ms`, ...) with a stat, or a group-level value without one
 * (`error_rate`, `requests_per_s`, `output_tokens_per_s`, `total_tokens_per_s`, `goodput_per_s`).
 */
export interface ThresholdSpec {
  readonly expression: string;
  /** Group key the threshold applies to; null = every group (each must pass). */
  readonly group: string | null;
  readonly metric: string;
  /** p50 | p90 | p95 | p99 | p999 | mean | min | max, or null for group-level values. */
  readonly stat: string | null;
  readonly op: '<' | '<=' | '>' | '>=';
  readonly value: number;
  /** Present when the threshold stops the run as soon as it fails (abort_on_fail); absent: checked at the end only. */
  readonly abortOnFail?: AbortOnFailSpec;
}

/** target.tls: absolute paths of PEM files (null: not set) and whether the server certificate is checked. */
export interface TlsSpec {
  /** CA bundle that replaces the system CAs for verifying the target. */
  readonly caPath: string | null;
  /** Client certificate and its key, for mutual TLS (both or neither). */
  readonly certPath: string | null;
  readonly keyPath: string | null;
  /** true: any server certificate is accepted (warned about, recorded in summary.json). */
  readonly insecureSkipVerify: boolean;
}

/** One scenario x model x tier: the unit every metric is reported for. */
export interface ResolvedGroup {
  readonly index: number;
  readonly scenario: string;
  /** null until resolved from the target (scenario without models). */
  readonly model: string | null;
  readonly tier: ServiceTier | null;
  /**
   * "scenario/model/tier" (tier "-" when none), stable across runs; used in CSV and compare. With a mix
   * class or an effort its first part is "scenario[.class][.effort]".
   */
  readonly key: string;
  /** The scenario's mix class this group measures (profile/groups.ts); absent or null without a mix. */
  readonly mixClass?: string | null;
  /** The reasoning_effort this group sends (scenario `reasoning_efforts`); absent or null without. */
  readonly reasoningEffort?: ReasoningEffort | null;
}

export interface ResolvedProfile {
  readonly name: string;
  /** File the profile came from (null when built in code). */
  readonly sourcePath: string | null;
  readonly target: {
    /** null: the embedded emulator. Excludes `/v1`. */
    readonly baseUrl: string | null;
    readonly apiKeyEnv: string;
    /** Variable holding the management key, read only for `models: { endpoints_of }` (never the key itself). */
    readonly managementKeyEnv: string;
    readonly headers: Readonly<Record<string, string>>;
    /** Emulator config file for the embedded emulator (relative paths resolved against the profile). */
    readonly emulatorConfig: string | null;
    /** TLS settings of an https target (target.tls); null when the profile has none. */
    readonly tls: TlsSpec | null;
    /** Streams ask for usage (stream_options.include_usage) unless the scenario sets stream_options. */
    readonly streamUsage: boolean;
    /** Header that carries a fresh id per request (x-request-id by default); null sends none. */
    readonly requestIdHeader: string | null;
    /** Every request carries a W3C `traceparent` with a fresh trace id (target.trace_context, default true). */
    readonly traceContext: boolean;
    /** Absolute path of a Hugging Face tokenizer.json (target.tokenizer); null: o200k_base. */
    readonly tokenizer: string | null;
    /** target.server_metrics (and --server-metrics): the target's Prometheus endpoints; absent when none. */
    readonly serverMetrics?: readonly ServerMetricsSpec[];
  };
  readonly scenarios: readonly ResolvedScenario[];
  /** Scenarios run one after another; the groups of one scenario run at the same time, each with the scenario's whole load. */
  readonly groups: readonly ResolvedGroup[];
  /** Parsed at load time (syntax errors name the line); evaluated by aggregate/ at the end of a run. */
  readonly thresholds: readonly ThresholdSpec[];
  /** `fail_on_invalid`: a run that is not valid evidence (aggregate/run-validity.ts) exits 5; absent: not set. */
  readonly failOnInvalid?: boolean;
  /** `stop_when_decided` (or `run --stop-when-decided`): stop once every threshold is decided (aggregate/decided-stop.ts); absent: not set. */
  readonly stopWhenDecided?: boolean;
  /** metric.stat -> limit in the metric's unit, e.g. { "ttft_ms.p99": 500 }. */
  readonly slo: Readonly<Record<string, number>>;
  /** Default tolerances for `compare`, e.g. { "ttft_ms.p99": "10%" }. */
  readonly compare: { readonly tolerances: Readonly<Record<string, string>> };
  /** How `inferbench capacity` searches (the `capacity:` block with its defaults). */
  readonly capacity: CapacitySpec;
  /** `deadlines:` in ms, for etalon's fluidity_index (measure/fluidity.ts); null: no fluidity_index. */
  readonly deadlines: { readonly ttftMs: number; readonly tbtMs: number } | null;
  /** `pricing:` model id -> its price, over the target's catalog; absent when the profile sets none. */
  readonly pricing?: Readonly<Record<string, ModelPrice>>;
  /** `live:` (what the run shows while it goes); absent when the profile sets none. */
  readonly live?: LiveSpec;
}

/** `capacity:` with its defaults (profile/sections/capacity.ts). */
export interface CapacitySpec {
  /** The SLO of the search, as written (e.g. { "ttft_ms.p99": "500ms", error_rate: "1%" }). */
  readonly slo: Readonly<Record<string, number | string>>;
  readonly minCapacity: number | null;
  readonly resolution: number;
  readonly maxSteps: number;
  /**
   * `max_step_duration` (or its older name `step_duration`), else 60 s: what the default step warmup is
   * a quarter of at most, and the floor of the default cap.
   */
  readonly stepDurationMs: number;
  /** `max_step_duration` as set; null: the default, computed per search (aggregate/capacity/step-length.ts). */
  readonly maxStepDurationMs: number | null;
  /** `step_warmup`; null: the default (sections/capacity.ts stepWarmupMs). */
  readonly stepWarmupMs: number | null;
  readonly blockMs: number;
  readonly alpha: number;
  readonly beta: number;
  readonly indifference: number;
  /** First load; null: from a calibration probe. */
  readonly start: number | null;
  readonly maxLoad: number;
  readonly seed: number;
  /** `mix`: each scenario's tiers searched together on the total load, split by weight; null: each group alone. */
  readonly mix: readonly MixMember[] | null;
}

/** One tier of `capacity.mix`. */
export interface MixMember {
  readonly tier: ServiceTier;
  readonly weight: number;
  /** Its own SLO, as written; null: capacity.slo. */
  readonly slo: Readonly<Record<string, number | string>> | null;
}

/** A preset of target.server_metrics: which engine's names map to the common concepts. */
export type ServerMetricsPreset =
  | 'auto'
  | 'vllm'
  | 'sglang'
  | 'tgi'
  | 'llamacpp'
  | 'trtllm'
  | 'dynamo'
  | 'triton'
  | 'dcgm';

/** One endpoint of target.server_metrics with its defaults (profile/sections/server-metrics.ts). */
export interface ServerMetricsSpec {
  readonly url: string;
  readonly preset: ServerMetricsPreset;
  /** One scrape per interval, on the run's clock. */
  readonly intervalMs: number;
  /** A scrape is given up after this long (at most intervalMs). */
  readonly timeoutMs: number;
  /** Extra names to keep: exact names, or "/regex/" over names (kept as written: summary.json records them). */
  readonly metrics: readonly string[];
  /** Of the series that have the label, keep those whose value equals the string (or matches a "/regex/"). */
  readonly labels: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** Variable holding a bearer key (the key itself is read at run time, never stored); null: none. */
  readonly apiKeyEnv: string | null;
}

/** `live:` resolved: flags override it (cli/live-metrics.ts). */
export interface LiveSpec {
  /** Prometheus /metrics port (0: any free port); null: no /metrics unless --metrics-port. */
  readonly metricsPort: number | null;
  /** null: 127.0.0.1 unless --metrics-host. */
  readonly metricsHost: string | null;
  /** After the run, wait at most this long for one more scrape of /metrics (0: close at once). */
  readonly metricsLingerMs: number;
}

/**
 * A model's price (`pricing:`), amounts as canonical decimal strings (exact: util/usd.ts): USD per input and
 * output token, or USD per hour of a dedicated deployment.
 */
export type ModelPrice =
  | { readonly kind: 'token'; readonly prompt: string; readonly completion: string }
  | { readonly kind: 'hour'; readonly perHour: string };
