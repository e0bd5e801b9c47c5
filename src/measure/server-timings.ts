/**
 * The server's own view of one request (`time_info`, seconds on the wire) in microseconds, and the part
 * of the client's e2e the server did not account for. NaN when the server sent no time_info.
 */
import type { RequestRecord } from '../client/request-record.js';
import { e2eUs } from './request-timings.js';

export function queueTimeUs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.queue_time * 1e6 : Number.NaN;
}

export function promptTimeUs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.prompt_time * 1e6 : Number.NaN;
}

export function completionTimeUs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.completion_time * 1e6 : Number.NaN;
}

export function totalTimeUs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.total_time * 1e6 : Number.NaN;
}

/** e2e - total_time: network, gateways and the client itself (open loop: client queueing too). */
export function clientOverheadUs(record: RequestRecord): number {
  return record.timeInfo ? e2eUs(record) - record.timeInfo.total_time * 1e6 : Number.NaN;
}
