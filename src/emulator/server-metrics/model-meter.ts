/**
 * What GET /metrics counts as requests are served: per model, the token counters, the prefix-cache
 * queries and hits, the answers by finish_reason and three latency histograms, with vLLM's bucket bounds
 * (vllm/v1/metrics: TIME_TO_FIRST_TOKEN_BUCKETS and REQUEST_LATENCY_BUCKETS). The response writer holds
 * its model's ModelMeter (looked up once per request) and calls it where the work happens: at the first
 * token (prompt processed), per tick's tokens, at the answer's last byte. Each call is a few additions
 * and, for a histogram, a scan of at most 22 bounds: no allocation, no label hashing, no string.
 * The gauges (running, waiting, KV use) are not here: they are read from the engine when scraped.
 */
import type { FinishReason } from '../../protocol/chat.js';

/** vLLM's `vllm:time_to_first_token_seconds` bounds, seconds. */
export const TTFT_BUCKETS_S: readonly number[] = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
  640.0, 2560.0,
];

/** vLLM's bounds of its request phase histograms (e2e, queue, prefill, decode, inference), seconds. */
export const REQUEST_LATENCY_BUCKETS_S: readonly number[] = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0,
  7680.0,
];

/** A fixed-bucket histogram: counts per bucket (not cumulative; the exposition accumulates), sum and count. */
export class BucketHistogram {
  /** counts[i]: observations <= bounds[i] and > bounds[i - 1]; the last entry is the +Inf bucket. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    this.counts[index] = (this.counts[index] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

/** One model's counters and histograms. */
export class ModelMeter {
  /** Prompt tokens of requests whose prompt was processed (usage.prompt_tokens). */
  promptTokens = 0;
  /** Tokens generated, reasoning included, as the engine released them (usage.completion_tokens once done). */
  generationTokens = 0;
  /** Prefix-cache lookups in tokens: every processed prompt's tokens, as vLLM counts queries. */
  prefixCacheQueries = 0;
  /** Prompt tokens served from the prefix cache (usage.prompt_tokens_details.cached_tokens). */
  prefixCacheHits = 0;
  /** Answers whose last byte went out, by the finish_reason they carried. */
  readonly finished: Record<FinishReason, number> = { stop: 0, length: 0, content_filter: 0, tool_calls: 0 };
  /** Request read -> first token released (time_info's queue_time + prompt_time). */
  readonly ttft = new BucketHistogram(TTFT_BUCKETS_S);
  /** time_info.queue_time of each answer. */
  readonly queueTime = new BucketHistogram(REQUEST_LATENCY_BUCKETS_S);
  /** time_info.total_time of each answer. */
  readonly e2e = new BucketHistogram(REQUEST_LATENCY_BUCKETS_S);

  /** The prompt has been processed (the first token is out, or the job ended without one). */
  prefilled(promptTokens: number, cachedTokens: number): void {
    this.promptTokens += promptTokens;
    this.prefixCacheQueries += promptTokens;
    this.prefixCacheHits += cachedTokens;
  }

  generated(tokens: number): void {
    this.generationTokens += tokens;
  }

  firstToken(ttftS: number): void {
    this.ttft.observe(ttftS);
  }

  /** The answer's last byte is written with this time_info. */
  answered(reason: FinishReason, queueTimeS: number, totalTimeS: number): void {
    this.finished[reason]++;
    this.queueTime.observe(queueTimeS);
    this.e2e.observe(totalTimeS);
  }
}

/** Every model's meter, created on first use; one per emulator. */
export class ServerMeters {
  readonly #byModel = new Map<string, ModelMeter>();

  /** The meter of a catalog model id or dedicated endpoint id. */
  of(modelId: string): ModelMeter {
    let meter = this.#byModel.get(modelId);
    if (meter === undefined) {
      meter = new ModelMeter();
      this.#byModel.set(modelId, meter);
    }
    return meter;
  }

  /** The meter of a model that has one, without creating it. */
  peek(modelId: string): ModelMeter | undefined {
    return this.#byModel.get(modelId);
  }
}
