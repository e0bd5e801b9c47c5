/**
 * requests.csv, streamed as the run goes: the file is opened before the first request, and each request
 * becomes one row the moment it ends (csv-stringify into a file stream), so a crash loses nothing already
 * done. One row per request, warmup included (warmup=1), with every per-request metric in milliseconds.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { stringify } from 'csv-stringify';
import type { Stringifier } from 'csv-stringify';
import type { RequestRecord } from '../client/request-record.js';
import type { TokenCounts } from '../measure/token-counts.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { requestMetrics } from './request-metrics.js';

/** Columns of requests.csv, in order. Times are ms; start_ms is relative to the run's start. */
export const REQUEST_COLUMNS = [
  'id',
  'group',
  'scenario',
  'model',
  'tier',
  'warmup',
  'status',
  'error_class',
  'timeout_phase',
  'error_code',
  'start_ms',
  'schedule_lag_ms',
  'connect_ms',
  'tls_handshake_ms',
  'ttfb_ms',
  'ttft_ms',
  'ttfo_ms',
  'e2e_ms',
  'tpot_ms',
  'itl_mean_ms',
  'itl_max_ms',
  'decode_tps',
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'tokens_estimated',
  'chunks',
  'finish_reason',
  'service_tier_used',
  'queue_time_ms',
  'prompt_time_ms',
  'completion_time_ms',
  'total_time_ms',
  'client_overhead_ms',
  'attempts',
  'retried_errors',
  'request_id',
  'response_id',
  'system_fingerprint',
  'error_message',
] as const;

export interface RequestsCsvWriter {
  /** Appends one finished request with its token counts. Never throws (a write failure is reported by close()). */
  write(record: RequestRecord, group: ResolvedGroup, tokens: TokenCounts): void;
  /** Rows written so far. */
  readonly rows: number;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

/** Rows are handed to the file at least this often (and at once beyond FLUSH_BYTES). */
export const REQUESTS_CSV_FLUSH_MS = 100;
const FLUSH_BYTES = 256 * 1024;

/**
 * Opens `path` (truncating). Rows are handed to the file every REQUESTS_CSV_FLUSH_MS in one write: a
 * write per row cost more CPU than the rest of the runner together (a write system call costs tens to
 * hundreds of microseconds on virtualised machines), so a hard crash can lose at most the last 100 ms of
 * rows, and nothing already flushed. close() flushes everything.
 */
export async function openRequestsCsv(path: string, runStartUs: number): Promise<RequestsCsvWriter> {
  const file = createWriteStream(path, { flags: 'w' });
  await new Promise<void>((resolve, reject) => {
    file.once('open', () => resolve());
    file.once('error', reject);
  });
  let failure: Error | null = null;
  file.on('error', (error) => {
    failure = error;
  });
  const csv: Stringifier = stringify({ header: true, columns: [...REQUEST_COLUMNS] });
  csv.on('error', (error) => {
    failure = error;
  });
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (pending.length === 0 || failure) return;
    file.write(pending);
    pending = '';
  };
  // csv-stringify pushes each row synchronously in flowing mode; the text waits for the next flush.
  csv.on('data', (chunk: Buffer | string) => {
    pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (pending.length >= FLUSH_BYTES) flush();
    else if (timer === null) timer = setTimeout(flush, REQUESTS_CSV_FLUSH_MS);
  });
  let rows = 0;
  return {
    write(record, group, tokens) {
      if (failure) return;
      csv.write(requestRow(record, group, tokens, runStartUs));
      rows++;
    },
    get rows() {
      return rows;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        csv.once('end', () => resolve());
        csv.end();
      });
      flush();
      await closeFile(file);
      if (failure) throw failure;
    },
  };
}

function closeFile(file: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (file.closed) return resolve();
    file.once('close', () => resolve());
    file.end();
  });
}

function requestRow(record: RequestRecord, group: ResolvedGroup, tokens: TokenCounts, runStartUs: number): unknown[] {
  const m = requestMetrics(record, tokens);
  return [
    record.id,
    group.key,
    group.scenario,
    group.model ?? '',
    group.tier ?? '',
    record.warmup ? 1 : 0,
    record.status,
    record.errorClass ?? '',
    record.timeoutPhase ?? '',
    record.errorCode ?? '',
    ms((record.intendedStartUs - runStartUs) / 1000),
    ms(m.scheduleLagMs),
    ms(m.connectMs),
    ms(m.tlsHandshakeMs),
    ms(m.ttfbMs),
    ms(m.ttftMs),
    ms(m.ttfoMs),
    ms(m.e2eMs),
    ms(m.tpotMs),
    ms(m.itlMeanMs),
    ms(m.itlMaxMs),
    ms(m.decodeTps),
    num(m.inputTokens),
    num(m.outputTokens),
    num(m.reasoningTokens),
    num(m.cachedTokens),
    m.tokensEstimated ? 1 : 0,
    record.chunkCount,
    record.finishReason ?? '',
    record.serviceTierUsed ?? '',
    ms(m.queueTimeMs),
    ms(m.promptTimeMs),
    ms(m.completionTimeMs),
    ms(m.totalTimeMs),
    ms(m.clientOverheadMs),
    record.attempts,
    record.retriedErrors.join(';'),
    record.requestId ?? '',
    record.responseId ?? '',
    record.systemFingerprint ?? '',
    record.errorMessage ?? '',
  ];
}

/** Milliseconds to 3 decimals (microsecond resolution); empty when not reached. */
function ms(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '' : String(Math.round(value * 1000) / 1000);
}

function num(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '' : String(value);
}
