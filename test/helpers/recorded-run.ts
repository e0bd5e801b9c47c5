/**
 * A profile run in the test's own process (runProfile, no CLI) that keeps a copy of every record and its
 * values as it ends, for tests that compare what the client stamped with what a purpose-built server
 * recorded of the same request (found by its `x-request-id`), on one clock; and one request sent alone by
 * a fresh client, for a test of one answer (an error event, a whole body).
 */
import { createInferenceClient } from '../../src/client/inference-client.js';
import { createRequestRecord, type RequestRecord } from '../../src/client/request-record.js';
import type { RecordedValues } from '../../src/metrics/request-values.js';
import type { ResolvedProfile } from '../../src/profile/resolved-profile.js';
import { runProfile } from '../../src/runner/run-profile.js';
import { systemClock } from '../../src/util/clock.js';
import type { ApiKind } from '../../src/protocol/apis.js';

/** A request as the run ended it: copies, since the runner reuses the objects it hands out. */
export interface SeenRequest {
  readonly record: RequestRecord;
  readonly values: RecordedValues;
}

/** Runs `profile` against `baseUrl` (its key, or none) on the system clock; resolves with every request seen. */
export async function runRecording(
  profile: ResolvedProfile,
  baseUrl: string,
  apiKey: string | null = null,
): Promise<SeenRequest[]> {
  const seen: SeenRequest[] = [];
  await runProfile({
    profile,
    target: { baseUrl, apiKey },
    control: { interrupt: new AbortController().signal },
    env: {
      clock: systemClock,
      cpuProbe: null,
      version: 'test',
      events: { onRecord: (record, _group, values) => seen.push({ record: { ...record }, values: { ...values } }) },
    },
  });
  return seen;
}

/** What a test server recorded of `record`'s request, by the `x-request-id` the client sent; throws when none. */
export function servedFor<T>(served: ReadonlyMap<string, T>, record: RequestRecord): T {
  const entry = served.get(record.requestId ?? '');
  if (entry === undefined) throw new Error(`the server saw no request ${record.requestId}`);
  return entry;
}

/** The median (upper middle of an even count): the statistic the one-clock TTFT checks bound. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** One request sent alone by a fresh client of `api` (no retries, 5 s limits), for a test of one answer. */
export interface SendOnce {
  readonly baseUrl: string;
  readonly api: ApiKind;
  readonly body: Record<string, unknown>;
  readonly apiKey?: string | null;
  /** Set on the record before it is sent: what a run would (keepContent, the embeddings' input count). */
  readonly prepare?: (record: RequestRecord) => void;
}

/** Sends `body` once and resolves with its record (the client is closed after, whatever happened). */
export async function sendOnce(request: SendOnce): Promise<RequestRecord> {
  const client = createInferenceClient({
    baseUrl: request.baseUrl,
    api: request.api,
    apiKey: request.apiKey ?? null,
    headers: {},
    requestIdHeader: 'x-request-id',
    maxConnections: 1,
    timeouts: { connectMs: 5_000, headersMs: 5_000, firstTokenMs: 5_000, idleMs: 5_000, totalMs: 10_000 },
    retry: { maxAttempts: 1, on: [], backoffMs: 0 },
    encoding: { contentType: 'json', gzip: false },
  });
  const record = createRequestRecord(0, 0, systemClock.nowUs());
  request.prepare?.(record);
  try {
    await client.send({ body: request.body }, record);
  } finally {
    await client.close();
  }
  return record;
}
