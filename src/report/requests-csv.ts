/**
 * requests.csv, streamed as the run goes: the file is opened before the first request, and each request
 * becomes one row the moment it ends (csv-stringify into a file stream), so a crash loses nothing already
 * done. One row per request, warmup included (warmup=1), with every per-request metric of the registry
 * (metrics/metric-registry.ts) in its reported unit, from the values derived once per request.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { stringify } from 'csv-stringify';
import type { Stringifier } from 'csv-stringify';
import type { RequestRecord } from '../client/request-record.js';
import { metricDefinition } from '../metrics/metric-registry.js';
import { RECORDED_KEY, type RecordedValues, type RequestMetricName } from '../metrics/request-values.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { LABELS_COLUMN, labelsCell } from './request-labels-cell.js';
import { CHECKS_COLUMN, checksCell } from './request-checks-cell.js';
import { COST_COLUMN, costCell, pricesRequests } from './request-cost-cell.js';
import type { PriceBook } from '../aggregate/cost/cost-prices.js';

/** One column: its header and its cell of a finished request. */
interface Column {
  readonly name: string;
  readonly cell: (row: RowInput) => string | number;
}

interface RowInput {
  readonly record: RequestRecord;
  readonly group: ResolvedGroup;
  readonly values: RecordedValues;
  readonly runStartUs: number;
}

/** A metric's own column (named by metric-registry.ts), its recorded value divided by the metric's scale. */
function metricColumn(metric: RequestMetricName): Column {
  const definition = metricDefinition(metric);
  const name = definition?.csvColumn ?? metric;
  const scale = definition?.scale ?? 1;
  const key = RECORDED_KEY[metric];
  return { name, cell: ({ values }) => reported(values[key], scale) };
}

const column = (name: string, cell: Column['cell']): Column => ({ name, cell });

/** The columns of requests.csv, in order. Times are ms; start_ms is relative to the run's start. */
const COLUMNS: readonly Column[] = [
  column('id', ({ record }) => record.id),
  column('group', ({ group }) => group.key),
  column('scenario', ({ group }) => group.scenario),
  column('model', ({ group }) => group.model ?? ''),
  column('tier', ({ group }) => group.tier ?? ''),
  column('warmup', ({ record }) => (record.warmup ? 1 : 0)),
  column('status', ({ record }) => record.status),
  column('error_class', ({ record }) => record.errorClass ?? ''),
  column('timeout_phase', ({ record }) => record.timeoutPhase ?? ''),
  column('error_code', ({ record }) => record.errorCode ?? ''),
  column('start_ms', ({ record, runStartUs }) => reported(record.latencyStartUs - runStartUs, 1000)),
  metricColumn('schedule_lag_ms'),
  metricColumn('connect_ms'),
  metricColumn('tls_handshake_ms'),
  metricColumn('ttfb_ms'),
  metricColumn('ttft_ms'),
  metricColumn('ttfo_ms'),
  metricColumn('e2e_ms'),
  metricColumn('tpot_ms'),
  column('itl_mean_ms', ({ values }) => reported(values.itlMeanUs, 1000)),
  column('itl_max_ms', ({ values }) => reported(values.itlMaxUs, 1000)),
  metricColumn('decode_tps'),
  metricColumn('fluidity_index'),
  metricColumn('input_tokens'),
  metricColumn('output_tokens'),
  metricColumn('reasoning_tokens'),
  metricColumn('cached_tokens'),
  column('tokens_estimated', ({ values }) => (values.tokensEstimated ? 1 : 0)),
  column('chunks', ({ record }) => record.chunkCount),
  column('finish_reason', ({ record }) => record.finishReason ?? ''),
  column('service_tier_used', ({ record }) => record.serviceTierUsed ?? ''),
  metricColumn('queue_time_ms'),
  metricColumn('prompt_time_ms'),
  metricColumn('completion_time_ms'),
  metricColumn('total_time_ms'),
  metricColumn('client_overhead_ms'),
  column('attempts', ({ record }) => record.attempts),
  column('retried_errors', ({ record }) => record.retriedErrors.join(';')),
  column('request_id', ({ record }) => record.requestId ?? ''),
  column('trace_id', ({ record }) => record.traceId ?? ''),
  column('response_id', ({ record }) => record.responseId ?? ''),
  column('server_request_id', ({ record }) => record.serverRequestId ?? ''),
  column('system_fingerprint', ({ record }) => record.systemFingerprint ?? ''),
  column('error_message', ({ record }) => record.errorMessage ?? ''),
];

/**
 * Column names of requests.csv, in order, without those that only some runs add after them: `inputs`
 * (api: embeddings), `cost_usd`, `checks_failed`, then `labels` (always last).
 */
export const REQUEST_COLUMNS: readonly string[] = COLUMNS.map((c) => c.name);

/** The inputs a request carried (api: embeddings: inputs_per_request), only in runs with such a scenario. */
const INPUTS: Column = column('inputs', ({ record }) => (Number.isNaN(record.inputs) ? '' : record.inputs));
/** The names of a request's failed answer checks (request-checks-cell.ts), only in runs that check answers. */
const CHECKS: Column = column(CHECKS_COLUMN, ({ record }) => checksCell(record.checks));
/** The column of a request's labels (`k=v;k=v`, request-labels-cell.ts), last, only in runs whose workload sets labels. */
const LABELS: Column = column(LABELS_COLUMN, ({ record }) => labelsCell(record.labels));

export interface RequestsCsvWriter {
  /** Appends one finished request with its values (derived once). Never throws (a write failure is reported by close()). */
  write(record: RequestRecord, group: ResolvedGroup, values: RecordedValues): void;
  /** The run's clock started at `runStartUs` (run-events.ts onRunStart): start_ms counts from it. */
  startAt(runStartUs: number): void;
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
 * rows, and nothing already flushed. close() flushes everything. `runStartUs` is where start_ms counts
 * from until startAt() gives the run's own start (the file opens before the workloads are built).
 */
export async function openRequestsCsv(
  path: string,
  runStartUs: number,
  options: {
    readonly labels?: boolean;
    readonly checks?: boolean;
    readonly prices?: PriceBook | null;
    /** Some scenario's requests carry inputs (api: embeddings): the `inputs` column, after the fixed ones. */
    readonly inputs?: boolean;
  } = {},
): Promise<RequestsCsvWriter> {
  const columns = [...COLUMNS];
  if (options.inputs === true) columns.push(INPUTS);
  const prices = options.prices;
  if (prices && pricesRequests(prices))
    columns.push(column(COST_COLUMN, ({ record, group, values }) => costCell(prices, record, group, values)));
  if (options.checks === true) columns.push(CHECKS);
  if (options.labels === true) columns.push(LABELS);
  const file = createWriteStream(path, { flags: 'w' });
  await new Promise<void>((resolve, reject) => {
    file.once('open', () => resolve());
    file.once('error', reject);
  });
  let failure: Error | null = null;
  file.on('error', (error) => {
    failure = error;
  });
  const csv: Stringifier = stringify({ header: true, columns: columns.map((c) => c.name) });
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
  let startUs = runStartUs;
  return {
    startAt(us) {
      startUs = us;
    },
    write(record, group, values) {
      if (failure) return;
      csv.write(requestRow(columns, { record, group, values, runStartUs: startUs }));
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

function requestRow(columns: readonly Column[], input: RowInput): (string | number)[] {
  return columns.map((c) => c.cell(input));
}

/** A recorded value in its reported unit: divided by `scale`, to 3 decimals (µs resolution for ms); empty when not reached. */
function reported(value: number, scale: number): string {
  if (!Number.isFinite(value)) return '';
  return scale === 1 ? String(value) : String(Math.round((value / scale) * 1000) / 1000);
}
