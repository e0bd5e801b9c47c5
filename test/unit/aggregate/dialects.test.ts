/**
 * One known stream of three requests, read in every tool's dialect (aggregate/dialects/), each number
 * computed by hand below from the tools' own definitions (docs/dialects.md). Times in ms from each
 * request's start; the run clock is in µs.
 *
 *   request  start  first event  text chunks          events (with choices, last at)  end  output tokens
 *   A          0     100 (role)   120 150 200           6 (5, 205)   210   4   (role, 3 text, finish at 205, usage-only chunk)
 *   B         50      80 (text)   80 100 130 170        4 (4, 170)   175   5   (role chunk carries text, no trailing event)
 *   C        100      60 (role)   90 150                4 (4, 160)   160   2   (role, 2 text, finish+usage in one chunk)
 *
 * A's usage arrives in a chunk of its own (`choices: []`), as vLLM and OpenAI send it when
 * `stream_options.include_usage` is asked; C's finish and usage share one chunk, as the emulator sends them.
 *
 * Window: first start 0 to last end 100 + 160 = 260 ms; last text chunk at 100 + 150 = 250 ms (AIPerf's).
 * 11 output tokens, 3 requests.
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { DialectFacts } from '../../../src/aggregate/dialects/request-facts.js';
import { DIALECTS, groupDialects } from '../../../src/aggregate/dialects/dialect-registry.js';
import { linearPercentile, rankOfTwo } from '../../../src/aggregate/dialects/dialect-stats.js';

const BASE_US = 1_000_000;

/** `choiceEvents` of the `events` had a non-empty `choices`, the last of them at `lastChoiceMs`. */
function record(
  startMs: number,
  firstEventMs: number,
  textMs: number[],
  events: number,
  endMs: number,
  choiceEvents = events,
  lastChoiceMs = endMs,
): RequestRecord {
  const r = createRequestRecord(0, 0, BASE_US + startMs * 1000);
  const at = (ms: number): number => BASE_US + (startMs + ms) * 1000;
  r.sentUs = r.launchUs;
  r.firstChunkUs = at(firstEventMs);
  r.tokenChunkTimesUs = textMs.map(at);
  r.firstTokenUs = at(textMs[0] as number);
  r.firstOutputUs = r.firstTokenUs;
  r.lastTokenUs = at(textMs[textMs.length - 1] as number);
  r.endUs = at(endMs);
  r.chunkCount = events;
  r.choiceChunkCount = choiceEvents;
  r.lastChoiceUs = at(lastChoiceMs);
  r.status = 200;
  return r;
}

function knownStream(): DialectFacts {
  const facts = new DialectFacts();
  facts.add(record(0, 100, [120, 150, 200], 6, 210, 5, 205), 4);
  facts.add(record(50, 80, [80, 100, 130, 170], 4, 175, 4, 170), 5);
  facts.add(record(100, 60, [90, 150], 4, 160), 2);
  return facts;
}

describe('numpy linear percentile', () => {
  it('interpolates between the closest ranks as np.percentile does', () => {
    // np.percentile([1, 2, 3, 4], [0, 50, 90, 100]) == [1, 2.5, 3.7, 4]
    const values = [0, 50, 90, 100].map((p) => linearPercentile([1, 2, 3, 4], p));
    for (const [i, expected] of [1, 2.5, 3.7, 4].entries()) expect(values[i]).toBeCloseTo(expected, 12);
    expect(linearPercentile([7], 99)).toBe(7);
  });

  it('reads a rank of two sorted arrays as of their merge (vLLM pools text gaps with role and finish gaps)', () => {
    for (const [a, b] of [
      [
        [1, 3, 5, 7],
        [2, 4],
      ],
      [[], [1, 2]],
      [
        [5, 5, 5],
        [5, 5],
      ],
      [
        [10, 20],
        [1, 2, 3, 30],
      ],
    ] as const) {
      const merged = [...a, ...b].sort((x, y) => x - y);
      for (let k = 0; k < merged.length; k++) expect(rankOfTwo(a, b, k)).toBe(merged[k]);
    }
  });
});

describe('dialects of one known stream', () => {
  it('vLLM: TTFT at the role chunk, one ITL per event after it, TPOT from the latency at the last event', () => {
    const v = DIALECTS.vllm(knownStream());
    // TTFT [100, 80, 60]
    expect(v.metrics.ttft_ms).toEqual({ name: 'TTFT', count: 3, mean: 80, p50: 80, p90: 96, p95: 98, p99: 99.6 });
    // latency: A 210 (trailing event), B 170 (ends on a text chunk), C 160
    expect(v.metrics.e2e_ms).toEqual({ name: 'E2EL', count: 3, mean: 180, p50: 170, p90: 202, p95: 206, p99: 209.2 });
    // TPOT: A (210-100)/3, B (170-80)/4, C (160-60)/1
    expect(v.metrics.tpot_ms).toEqual({
      name: 'TPOT',
      count: 3,
      mean: 53.056,
      p50: 36.667,
      p90: 87.333,
      p95: 93.667,
      p99: 98.733,
    });
    // ITL: text gaps 30 50 | 20 30 40 | 60, leading 20 (A) 30 (C), trailing to the finish chunk 5 (A) 10 (C);
    // A's usage-only chunk at 210 has no choices: no ITL sample, but it ends A's latency
    expect(v.metrics.itl_ms).toEqual({ name: 'ITL', count: 10, mean: 29.5, p50: 30, p90: 51, p95: 55.5, p99: 59.1 });
    expect(v.duration_s).toBeCloseTo(0.26, 12);
    expect(v.output_tokens).toBe(11);
    expect(v.output_tokens_per_s).toBe(42.308);
    expect(v.requests_per_s).toBe(11.538);
  });

  it('AIPerf: ITL per request from TTFT to the last content chunk, chunk gaps as ICL', () => {
    const a = DIALECTS.aiperf(knownStream());
    // TTFT [120, 80, 90]
    expect(a.metrics.ttft_ms).toMatchObject({ count: 3, mean: 96.667, p50: 90, p90: 114, p95: 117, p99: 119.4 });
    // request latency ends at the last content chunk: [200, 170, 150]
    expect(a.metrics.e2e_ms).toMatchObject({ count: 3, mean: 173.333, p50: 170, p90: 194, p95: 197, p99: 199.4 });
    // ITL: (200-120)/3, (170-80)/4, (150-90)/1: per request (latency - TTFT) / (tokens - 1), the tpot_ms concept
    expect(a.metrics.tpot_ms).toEqual({
      name: 'Inter Token Latency (ITL)',
      count: 3,
      mean: 36.389,
      p50: 26.667,
      p90: 53.333,
      p95: 56.667,
      p99: 59.333,
    });
    // ICL: [20, 30, 30, 40, 50, 60]: the pooled chunk gaps, the itl_ms concept
    expect(a.metrics.itl_ms).toEqual({
      name: 'Inter Chunk Latency (ICL)',
      count: 6,
      mean: 38.333,
      p50: 35,
      p90: 55,
      p95: 57.5,
      p99: 59.5,
    });
    expect(a.duration_s).toBeCloseTo(0.25, 12);
    expect(a.output_tokens_per_s).toBe(44);
  });

  it('GuideLLM: TPOT includes the first token, ITL excludes it, both token-weighted', () => {
    const g = DIALECTS.guidellm(knownStream());
    expect(g.metrics.ttft_ms).toMatchObject({ count: 3, mean: 96.667, p50: 90, p90: 120, p99: 120 });
    // TPOT: 200/4 = 50 (w 4), 170/5 = 34 (w 5), 150/2 = 75 (w 2); mean 520/11
    expect(g.metrics.tpot_with_ttft_ms).toEqual({
      name: 'time_per_output_token_ms',
      count: 11,
      mean: 47.273,
      p50: 50,
      p90: 75,
      p95: 75,
      p99: 75,
    });
    // ITL: 80/3 (w 3), 90/4 = 22.5 (w 4), 60/1 (w 1); cumulative 0.5 at 22.5; mean 230/8
    expect(g.metrics.tpot_ms).toMatchObject({
      name: 'inter_token_latency_ms',
      count: 8,
      mean: 28.75,
      p50: 22.5,
      p90: 60,
      p99: 60,
    });
    // request latency to the end of the response: [210, 175, 160]
    expect(g.metrics.e2e_ms).toMatchObject({ count: 3, mean: 181.667, p50: 175, p90: 210 });
    expect(g.output_tokens_per_s).toBe(42.308);
  });

  it('llmperf: ITL is the time to the last content chunk over the SSE events with choices, TTFT included', () => {
    const l = DIALECTS.llmperf(knownStream());
    expect(l.metrics.ttft_ms).toMatchObject({ count: 3, mean: 96.667, p50: 90, p90: 114 });
    // 200/5 (role, 3 text, finish: llmperf never receives A's usage-only chunk), 170/4, 150/4
    expect(l.metrics.itl_ms).toBeUndefined();
    expect(l.metrics.tpot_with_ttft_ms).toEqual({
      name: 'inter_token_latency_s',
      count: 3,
      mean: 40,
      p50: 40,
      p90: 42,
      p95: 42.25,
      p99: 42.45,
    });
    expect(l.metrics.e2e_ms).toMatchObject({ mean: 181.667, p50: 175, p90: 203, p95: 206.5, p99: 209.3 });
    // 4/0.21, 5/0.175, 2/0.16 tokens/s
    expect(l.metrics.request_output_tokens_per_s).toMatchObject({
      mean: 20.04,
      p50: 19.048,
      p90: 26.667,
      p95: 27.619,
      p99: 28.381,
    });
    expect(l.output_tokens_per_s).toBe(42.308);
  });

  it('vLLM: a non-text chunk between text chunks is not a trailing event (the stream ends on text)', () => {
    // role 100, text 120, empty-content chunk 130, text 150, end of body 155: no finish chunk after the text
    const facts = new DialectFacts();
    facts.add(record(0, 100, [120, 150], 4, 155, 4, 150), 2);
    const v = DIALECTS.vllm(facts);
    expect(v.metrics.e2e_ms).toMatchObject({ count: 1, mean: 150 });
    // leading 20, the text gap 30 (vLLM samples 10 and 20 at the empty chunk: docs/dialects.md), no trailing gap
    expect(v.metrics.itl_ms).toMatchObject({ count: 2, mean: 25 });
  });

  it('keeps every request and gap under the caps, and says nothing of sampling', () => {
    const facts = new DialectFacts({ requestCap: 3, gapCap: 10 });
    facts.add(record(0, 100, [120, 150, 200], 6, 210, 5, 205), 4);
    facts.add(record(50, 80, [80, 100, 130, 170], 4, 175, 4, 170), 5);
    facts.add(record(100, 60, [90, 150], 4, 160), 2);
    expect(facts.sample).toBeUndefined();
    expect(DIALECTS.vllm(facts)).not.toHaveProperty('sampled');
    expect(DIALECTS.vllm(facts).metrics.itl_ms).toMatchObject({ count: 10, mean: 29.5 });
  });

  it('bounds a long run by a seeded uniform sample of requests and gaps, totals over every request', () => {
    // 20,000 requests: TTFT i % 1000 ms, text chunks 10 ms apart (gap 10 ms) except a 50 ms gap in every 5th request.
    const facts = new DialectFacts({ requestCap: 1000, gapCap: 2000, seed: 7 });
    for (let i = 0; i < 20_000; i++) {
      const ttft = i % 1000;
      const last = i % 5 === 0 ? 60 : 20;
      facts.add(record(0, ttft, [ttft, ttft + 10, ttft + last], 3, ttft + last), 3);
    }
    expect(facts.count).toBe(20_000);
    expect(facts.gapCount).toBe(40_000);
    expect(facts.sample).toEqual({ requests: 1000, gaps: 2000 });
    expect(facts.requests()).toHaveLength(1000);
    const v = DIALECTS.vllm(facts);
    expect(v).toMatchObject({ requests: 20_000, output_tokens: 60_000, sampled: true, sampled_requests: 1000 });
    expect(v.sampled_gaps).toBe(2000);
    // Uniform over 0..999 ms: mean 499.5, sd 288.7, so the mean of 1000 draws is within 4 sd / sqrt(1000) = 37 ms.
    const ttft = v.metrics.ttft_ms!;
    expect(ttft.count).toBe(1000);
    expect(Math.abs(ttft.mean - 499.5)).toBeLessThan(37);
    // Gaps: 10% are 50 ms, 90% 10 ms; the sample keeps the proportion (binomial sd 0.0067: 4 sd = 0.027).
    const itl = v.metrics.itl_ms!;
    expect(itl.count).toBe(2000);
    expect(Math.abs((itl.mean - 10) / 40 - 0.1)).toBeLessThan(0.027);
    expect(itl.p50).toBe(10);
    expect(itl.p99).toBe(50);
    // Seeded: the same run gives the same sample.
    const again = new DialectFacts({ requestCap: 1000, gapCap: 2000, seed: 7 });
    for (let i = 0; i < 20_000; i++) {
      const t = i % 1000;
      const last = i % 5 === 0 ? 60 : 20;
      again.add(record(0, t, [t, t + 10, t + last], 3, t + last), 3);
    }
    expect(DIALECTS.vllm(again)).toEqual(v);
  });

  it('has no dialects without a request that carried generated text', () => {
    const facts = new DialectFacts();
    const none = createRequestRecord(0, 0, BASE_US);
    none.endUs = BASE_US + 5000;
    facts.add(none, 0);
    expect(groupDialects(facts)).toBeUndefined();
    expect(Object.keys(groupDialects(knownStream()) ?? {})).toEqual(['vllm', 'aiperf', 'guidellm', 'llmperf']);
  });
});
