/**
 * Every per-request metric on hand-built records: role-only first chunk, reasoning (ttft vs ttfo),
 * non-streaming, time_info, no usage (estimated with the real tokenizer), server/client token mismatch,
 * per-request SLO checks for goodput.
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { isFailed, isOk, isThrottled } from '../../../src/measure/request-status.js';
import {
  decodeTps,
  e2eUs,
  itlGapCount,
  itlGapsUs,
  scheduleLagUs,
  tpotUs,
  ttfbUs,
  ttfoUs,
  ttftUs,
} from '../../../src/measure/request-timings.js';
import {
  clientOverheadUs,
  completionTimeUs,
  promptTimeUs,
  queueTimeUs,
  totalTimeUs,
} from '../../../src/measure/server-timings.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import { createSloEvaluator, parseSlo } from '../../../src/measure/slo.js';
import { isTokenMismatch, tokenCounts } from '../../../src/measure/token-counts.js';
import { countTokens } from '../../../src/util/tokenizer.js';

/** The request's values as the runner derives them once, with `outputTokens` output tokens. */
function valuesOf(r: RequestRecord, outputTokens: number) {
  return fillRecordedValues(r, { ...tokenCounts(r, null), output: outputTokens }, createRecordedValues());
}

/** The tokenizer's counts of the received text, as the runner makes them once per request. */
function received(r: RequestRecord) {
  return { output: countTokens(r.outputText), reasoning: countTokens(r.reasoningText) };
}

/**
 * A streamed answer: intended start 1_000_000 µs, sent 2 ms later, headers at +50 ms, a role-only chunk at
 * +60 ms, text chunks at +100, +110, +125, +145 ms, end at +150 ms.
 */
function streamed(): RequestRecord {
  const r = createRequestRecord(0, 0, 1_000_000);
  r.sentUs = 1_002_000;
  r.headersUs = 1_050_000;
  r.firstChunkUs = 1_060_000; // role-only chunk: not a token
  r.firstTokenUs = 1_100_000;
  r.firstOutputUs = 1_100_000;
  r.tokenChunkTimesUs = [1_100_000, 1_110_000, 1_125_000, 1_145_000];
  r.lastTokenUs = 1_145_000;
  r.endUs = 1_150_000;
  r.status = 200;
  r.chunkCount = 6;
  r.outputText = ' the model token stream';
  r.usage = { prompt_tokens: 100, completion_tokens: 4, total_tokens: 104 };
  r.timeInfo = { queue_time: 0.005, prompt_time: 0.02, completion_time: 0.09, total_time: 0.115, created: 1 };
  r.expectedInputTokens = 100;
  return r;
}

describe('client timings', () => {
  it('measures from the intended start; ttft skips the role-only first chunk', () => {
    const r = streamed();
    expect(scheduleLagUs(r)).toBe(2000);
    expect(ttfbUs(r)).toBe(50_000);
    expect(ttftUs(r)).toBe(100_000); // not 60 ms: the role-only chunk carries no text
    expect(ttfoUs(r)).toBe(100_000);
    expect(e2eUs(r)).toBe(150_000);
    expect(itlGapCount(r)).toBe(3);
    expect(itlGapsUs(r)).toEqual([10_000, 15_000, 20_000]);
  });

  it('tpot = (e2e - ttft) / (output_tokens - 1), decode_tps its inverse in tokens/s', () => {
    const r = streamed();
    // e2e 150, ttft 100, 4 tokens: 50 / 3 ms per token; 3 tokens / 0.05 s = 60 tokens/s.
    expect(tpotUs(r, 4)).toBeCloseTo((50 / 3) * 1000, 9);
    expect(decodeTps(r, 4)).toBeCloseTo(60, 9);
    // Usage says 11 tokens in the same 4 chunks (several tokens per chunk): tokens, not chunks, count.
    expect(tpotUs(r, 11)).toBeCloseTo(5000, 9);
    expect(decodeTps(r, 11)).toBeCloseTo(200, 9);
    expect(tpotUs(r, 1)).toBeNaN();
    expect(decodeTps(r, 1)).toBeNaN();
  });

  it('reasoning: ttft at the first reasoning chunk, ttfo at the first answer chunk', () => {
    const r = streamed();
    r.firstTokenUs = 1_080_000;
    r.firstOutputUs = 1_125_000;
    r.reasoningText = ' think';
    expect(ttftUs(r)).toBe(80_000);
    expect(ttfoUs(r)).toBe(125_000);
  });

  it('non-streaming: one body, no ITL, no tpot or decode rate (the decode phase was not observable)', () => {
    const r = createRequestRecord(1, 0, 5_000_000);
    r.sentUs = 5_000_500;
    r.headersUs = 5_300_000;
    r.firstChunkUs = 5_300_100;
    r.firstTokenUs = 5_300_100;
    r.firstOutputUs = 5_300_100;
    r.tokenChunkTimesUs = [5_300_100];
    r.lastTokenUs = 5_300_100;
    r.endUs = 5_300_200;
    r.status = 200;
    r.usage = { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50 };
    expect(ttftUs(r)).toBeCloseTo(300_100, 9);
    expect(e2eUs(r)).toBeCloseTo(300_200, 9);
    expect(itlGapsUs(r)).toEqual([]);
    expect(tpotUs(r, 40)).toBeNaN();
    expect(decodeTps(r, 40)).toBeNaN();
  });

  it('NaN for points never reached (failed before headers)', () => {
    const r = createRequestRecord(2, 0, 1000);
    r.sentUs = 1500;
    r.endUs = 9000;
    r.errorClass = 'connect';
    expect(ttfbUs(r)).toBeNaN();
    expect(ttftUs(r)).toBeNaN();
    expect(e2eUs(r)).toBe(8000);
    expect(isOk(r)).toBe(false);
    expect(isFailed(r)).toBe(true);
  });
});

describe('server timings', () => {
  it('time_info seconds to ms, client overhead = e2e - total_time', () => {
    const r = streamed();
    expect(queueTimeUs(r)).toBeCloseTo(5000, 9);
    expect(promptTimeUs(r)).toBeCloseTo(20_000, 9);
    expect(completionTimeUs(r)).toBeCloseTo(90_000, 9);
    expect(totalTimeUs(r)).toBeCloseTo(115_000, 9);
    expect(clientOverheadUs(r)).toBeCloseTo(35_000, 9);
    r.timeInfo = null;
    expect(totalTimeUs(r)).toBeNaN();
    expect(clientOverheadUs(r)).toBeNaN();
  });
});

describe('status', () => {
  it('429 is throttled, not failed', () => {
    const r = streamed();
    expect(isOk(r)).toBe(true);
    r.errorClass = 'http_429';
    expect([isOk(r), isThrottled(r), isFailed(r)]).toEqual([false, true, false]);
    r.errorClass = 'http_5xx';
    expect([isOk(r), isThrottled(r), isFailed(r)]).toEqual([false, false, true]);
  });
});

describe('token counts', () => {
  it('from usage when present, with details', () => {
    const r = streamed();
    r.usage = {
      prompt_tokens: 120,
      completion_tokens: 4,
      total_tokens: 124,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    const counts = tokenCounts(r, received(r));
    expect(counts).toMatchObject({
      input: 120,
      output: 4,
      reasoning: 0,
      cached: 64,
      estimated: false,
      mismatch: 0,
      mismatched: false,
    });
  });

  it('without usage: the real tokenizer on answer + reasoning text, input from the workload, flagged estimated', () => {
    const r = streamed();
    r.usage = null;
    r.outputText = 'Hello, world! This is a test of the emergency broadcast system.';
    r.reasoningText = 'Let me think about benchmarks.';
    r.expectedInputTokens = 321;
    const counts = tokenCounts(r, received(r));
    const answer = countTokens(r.outputText);
    const reasoning = countTokens(r.reasoningText);
    // o200k: "Hello" "," " world" "!" " This" " is" " a" " test" " of" " the" " emergency" " broadcast" " system" "."
    expect(answer).toBe(14);
    expect(reasoning).toBe(6);
    expect(counts).toMatchObject({ input: 321, output: 20, reasoning: 6, estimated: true, mismatched: false });
    expect(counts.cached).toBeNaN();
    expect(counts.mismatch).toBeNaN();
  });

  it('mismatch: tokenizer count of the received text vs usage.completion_tokens, beyond 2 tokens and 2%', () => {
    const r = streamed(); // ' the model token stream' = 4 tokens
    expect(countTokens(r.outputText)).toBe(4);
    r.usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    expect(tokenCounts(r, received(r))).toMatchObject({ output: 10, mismatch: 6, mismatched: true });
    r.usage = { prompt_tokens: 100, completion_tokens: 6, total_tokens: 106 };
    expect(tokenCounts(r, received(r))).toMatchObject({ mismatch: 2, mismatched: false });
    // One token per chunk is not assumed: 4 chunks, 4 tokens here, but it is the text that is counted.
    r.tokenChunkTimesUs = [1_100_000, 1_145_000];
    r.usage = { prompt_tokens: 100, completion_tokens: 4, total_tokens: 104 };
    expect(tokenCounts(r, received(r)).mismatched).toBe(false);
    expect(tokenCounts(r, null).mismatch).toBeNaN();
    expect(isTokenMismatch(3, 100)).toBe(true);
    expect(isTokenMismatch(3, 1000)).toBe(false);
    expect(isTokenMismatch(2, 10)).toBe(false);
  });
});

describe('per-request SLO (goodput)', () => {
  it('parses metric.stat keys and ignores group-level ones', () => {
    expect(
      parseSlo({ 'ttft_ms.p99': 500, error_rate: 0.01, 'itl_ms.p50': 20, 'decode_tps.p50': 30 }).map((c) => c.key),
    ).toEqual(['ttft_ms.p99', 'itl_ms.p50', 'decode_tps.p50']);
  });

  it('uses the request own values: its ttft, its own pXX of ITL gaps, decode_tps as a floor', () => {
    const r = streamed(); // ttft 100, gaps 10 15 20, e2e 150, decode 60 tok/s at 4 tokens
    expect(createSloEvaluator({ 'ttft_ms.p99': 100 }).isGood(r, valuesOf(r, 4))).toBe(true);
    expect(createSloEvaluator({ 'ttft_ms.p99': 99.9 }).isGood(r, valuesOf(r, 4))).toBe(false);
    expect(createSloEvaluator({ 'itl_ms.p99': 20 }).isGood(r, valuesOf(r, 4))).toBe(true);
    expect(createSloEvaluator({ 'itl_ms.p99': 19 }).isGood(r, valuesOf(r, 4))).toBe(false);
    expect(createSloEvaluator({ 'itl_ms.p50': 15 }).isGood(r, valuesOf(r, 4))).toBe(true);
    expect(createSloEvaluator({ 'itl_ms.p50': 14 }).isGood(r, valuesOf(r, 4))).toBe(false);
    expect(createSloEvaluator({ 'itl_ms.mean': 15 }).isGood(r, valuesOf(r, 4))).toBe(true);
    expect(createSloEvaluator({ 'decode_tps.p50': 60 }).isGood(r, valuesOf(r, 4))).toBe(true);
    expect(createSloEvaluator({ 'decode_tps.p50': 61 }).isGood(r, valuesOf(r, 4))).toBe(false);
    expect(createSloEvaluator({ 'ttft_ms.p99': 500, 'e2e_ms.p99': 149 }).isGood(r, valuesOf(r, 4))).toBe(false);
    // A metric the request lacks does not fail it; a failed request is never good.
    r.timeInfo = null;
    expect(createSloEvaluator({ 'total_time_ms.p99': 1 }).isGood(r, valuesOf(r, 4))).toBe(true);
    r.errorClass = 'http_429';
    expect(createSloEvaluator({}).isGood(r, valuesOf(r, 4))).toBe(false);
  });
});
