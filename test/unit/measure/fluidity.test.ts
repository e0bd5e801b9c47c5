/**
 * etalon's fluidity index (measure/fluidity.ts) on hand-computed cases: slack carried by early tokens, a
 * late token counting as several missed deadlines, the first token judged against the TTFT deadline, and
 * the per-request value derived from a record (token events are chunks carrying text).
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord } from '../../../src/client/request-record.js';
import { countDeadlines, fluidityIndexRecorded } from '../../../src/measure/fluidity.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';

/** countDeadlines in ms (the walk is unit-free): [missed, total]. */
function deadlines(intervalsMs: number[], ttftMs: number, tbtMs: number): [number, number] {
  const count = countDeadlines(intervalsMs, ttftMs, tbtMs);
  return [count.missed, count.total];
}

describe('the deadline walk (etalon get_request_level_deadline_miss_rate)', () => {
  it('every token on time: one deadline each, none missed', () => {
    // TTFT 100 of 500 (slack 400), then 20 of 50 each (slack 430, 460, 490).
    expect(deadlines([100, 20, 20, 20], 500, 50)).toEqual([0, 4]);
  });

  it('a token exactly on its deadline meets it', () => {
    expect(deadlines([100, 50, 50], 100, 50)).toEqual([0, 3]);
  });

  it('slack carried from early tokens absorbs a later stall', () => {
    // TTFT 100 of 500 leaves 400 ms; a 400 ms gap is within 50 + 400.
    expect(deadlines([100, 400], 500, 50)).toEqual([0, 2]);
  });

  it('a late token counts floor(lateness / tbt) missed deadlines', () => {
    // No slack (TTFT on its deadline); a 170 ms gap covers three 50 ms deadlines, all missed.
    expect(deadlines([100, 170], 100, 50)).toEqual([3, 4]);
    // 40 ms of slack: (170 - 40) / 50 = 2.6 -> 2 missed.
    expect(deadlines([60, 170], 100, 50)).toEqual([2, 3]);
  });

  it('the first token is judged against the TTFT deadline: its own miss plus one per whole tbt beyond', () => {
    // 620 ms against 500: 1 + floor(120 / 50) = 3 missed; the next token, on time, meets its deadline.
    expect(deadlines([620, 20], 500, 50)).toEqual([3, 4]);
    expect(deadlines([501], 500, 50)).toEqual([1, 1]);
  });

  it('a miss resets the slack to 0', () => {
    // Slack 60 after the first token; the 200 ms gap misses floor(140 / 50) = 2 and resets the slack, so
    // the next tokens start from 0 (45 <= 50, then 45 <= 55).
    expect(deadlines([40, 200, 45, 45], 100, 50)).toEqual([2, 5]);
  });
});

/** A streamed request: first token `ttftMs` after the start, then the given gaps (ms). */
function streamed(ttftMs: number, gapsMs: number[]) {
  const record = createRequestRecord(0, 0, 1_000_000);
  record.sentUs = record.latencyStartUs;
  record.headersUs = record.latencyStartUs + 1000;
  record.firstTokenUs = record.latencyStartUs + ttftMs * 1000;
  record.tokenChunkTimesUs = [record.firstTokenUs];
  for (const gap of gapsMs) record.tokenChunkTimesUs.push((record.tokenChunkTimesUs.at(-1) as number) + gap * 1000);
  record.lastTokenUs = record.tokenChunkTimesUs.at(-1) as number;
  record.endUs = record.lastTokenUs + 500;
  record.status = 200;
  record.usage = { prompt_tokens: 5, completion_tokens: gapsMs.length + 1, total_tokens: gapsMs.length + 6 };
  return record;
}

describe('fluidity_index of a request (recorded x 1000)', () => {
  const deadlines50 = { ttftMs: 50, tbtMs: 50 };

  it('tokens every 20 ms under a 50 ms tbt deadline: 1.0', () => {
    expect(fluidityIndexRecorded(streamed(5, Array(9).fill(20)), deadlines50)).toBe(1000);
  });

  it('a 160 ms stall after the first token: 2 of 11 deadlines missed, 9/11 floored to 0.818', () => {
    // TTFT 5 of 50 leaves 45; (160 - 45) / 50 -> 2 missed; 8 more tokens on time.
    expect(fluidityIndexRecorded(streamed(5, [160, ...Array(8).fill(20)]), deadlines50)).toBe(818);
  });

  it('is NaN without deadlines, without a streamed token, or without a first token', () => {
    expect(fluidityIndexRecorded(streamed(5, [20]), null)).toBeNaN();
    const none = streamed(5, []);
    none.tokenChunkTimesUs = [];
    expect(fluidityIndexRecorded(none, deadlines50)).toBeNaN();
  });

  it('is one of the values derived once per request, only with deadlines', () => {
    const record = streamed(5, [160, ...Array(8).fill(20)]);
    const tokens = tokenCounts(record, null);
    expect(fillRecordedValues(record, tokens, createRecordedValues()).fluidity_index_x1000).toBeNaN();
    expect(fillRecordedValues(record, tokens, createRecordedValues(), deadlines50).fluidity_index_x1000).toBe(818);
  });
});
