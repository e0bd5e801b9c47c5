/**
 * A completion's `time_info`, from the moments that bound its phases (the engine's JobTimes) and the
 * moment its last byte is written: queue (request read -> slot), prompt (slot -> first token),
 * completion (first token -> last write), total (request read -> last write). Every moment is rounded
 * to a whole microsecond and kept in order before subtracting, so no part is negative and the parts
 * add up to total_time exactly: a client that sums them, or subtracts total_time from its own e2e, reads
 * the server's time and nothing else.
 */
import type { TimeInfo } from '../protocol/chat.js';
import type { JobTimes } from './engine.js';

/** time_info of a job whose last byte is written at `lastWriteMs` (engine clock, ms). */
export function timeInfoOf(times: JobTimes, lastWriteMs: number): TimeInfo {
  const receivedUs = Math.round(times.receivedMs * 1000);
  const slotUs = Math.max(receivedUs, Math.round(times.slotMs * 1000));
  const firstMs = Number.isNaN(times.firstTokenMs) ? times.doneMs : times.firstTokenMs;
  const firstUs = Math.max(slotUs, Math.round(firstMs * 1000));
  const endUs = Math.max(firstUs, Math.round(Math.max(times.doneMs, lastWriteMs) * 1000));
  return {
    queue_time: seconds(slotUs - receivedUs),
    prompt_time: seconds(firstUs - slotUs),
    completion_time: seconds(endUs - firstUs),
    total_time: seconds(endUs - receivedUs),
    created: times.receivedWallMs / 1000,
  };
}

/** Whole microseconds to seconds. */
function seconds(us: number): number {
  return us / 1_000_000;
}
