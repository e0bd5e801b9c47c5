/** time_info from a job's phase boundaries: parts that add up exactly, queue time from receipt, the last write as the end. */
import { describe, expect, it } from 'vitest';
import type { JobTimes } from '../../../src/emulator/engine.js';
import { timeInfoOf } from '../../../src/emulator/time-info.js';

const micros = (seconds: number) => Math.round(seconds * 1e6);

const times = (overrides: Partial<JobTimes> = {}): JobTimes => ({
  receivedMs: 1000.0004,
  slotMs: 1250.3337,
  firstTokenMs: 1290.6661,
  doneMs: 1790.1119,
  receivedWallMs: 1_767_225_600_000,
  ...overrides,
});

describe('timeInfoOf', () => {
  it('queue from receipt to slot, prompt to the first token, completion to the last write', () => {
    const info = timeInfoOf(times(), 1792.5);
    expect(info.queue_time).toBe(0.250334);
    expect(info.prompt_time).toBe(0.040332);
    expect(info.completion_time).toBe(0.501834);
    expect(info.total_time).toBe(0.7925);
    expect(info.created).toBe(1_767_225_600);
  });

  it('the parts add up to total_time to the microsecond, whatever the fractions', () => {
    for (let i = 0; i < 1000; i++) {
      const receivedMs = 5000 + i * 1.37913;
      const slotMs = receivedMs + ((i * 7.919) % 900);
      const firstTokenMs = slotMs + ((i * 3.3331) % 200);
      const doneMs = firstTokenMs + ((i * 11.0007) % 3000);
      const info = timeInfoOf(times({ receivedMs, slotMs, firstTokenMs, doneMs }), doneMs + ((i * 0.1234567) % 5));
      expect(micros(info.queue_time) + micros(info.prompt_time) + micros(info.completion_time)).toBe(
        micros(info.total_time),
      );
    }
  });

  it('a job that released no token: prompt runs to its end, completion to the write', () => {
    const info = timeInfoOf(times({ firstTokenMs: Number.NaN }), 1791.1119);
    expect(info.prompt_time).toBe(0.539778);
    expect(info.completion_time).toBe(0.001);
  });

  it('never a negative part, even when a mark is out of order or the write stamp is before the engine end', () => {
    const info = timeInfoOf(times({ slotMs: 999, firstTokenMs: 990 }), 1700);
    expect(info.queue_time).toBe(0);
    expect(info.prompt_time).toBe(0);
    // The end is never before the engine's own end.
    expect(info.total_time).toBe(0.790112);
    expect(info.completion_time).toBe(0.790112);
  });
});
