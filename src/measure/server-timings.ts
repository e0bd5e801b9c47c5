/**
 * The server's own view of one request (`time_info`, seconds on the wire) in milliseconds, and the part
 * of the client's e2e the server did not account for. NaN when the server sent no time_info.
 */
import type { RequestRecord } from '../client/request-record.js';
import { e2eMs } from './request-timings.js';

export function queueTimeMs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.queue_time * 1000 : Number.NaN;
}

export function promptTimeMs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.prompt_time * 1000 : Number.NaN;
}

export function completionTimeMs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.completion_time * 1000 : Number.NaN;
}

export function totalTimeMs(record: RequestRecord): number {
  return record.timeInfo ? record.timeInfo.total_time * 1000 : Number.NaN;
}

/** e2e - total_time: network, gateways and the client itself (open loop: client queueing too). */
export function clientOverheadMs(record: RequestRecord): number {
  return record.timeInfo ? e2eMs(record) - record.timeInfo.total_time * 1000 : Number.NaN;
}
