/**
 * The client's public contract: one request in, facts into a RequestRecord out. Failures never throw:
 * they are classified into the record (errorClass), so the scheduler is never unwound by a bad server.
 */
import type { EncodingSpec, RetrySpec, TimeoutSpec, TlsSpec } from '../profile/resolved-profile.js';
import type { ProxySettings } from './proxy.js';
import type { RequestPlan } from '../workload/request-plan.js';
import type { RequestRecord } from './request-record.js';
import type { Clock } from '../util/clock.js';
import type { ApiKind } from '../protocol/apis.js';

export interface ClientOptions {
  /** Base URL without `/v1`. */
  readonly baseUrl: string;
  /** The API every request of this client speaks (its path and how its responses are read); absent: chat. */
  readonly api?: ApiKind;
  /** The bearer key (from the environment; never logged, never written anywhere). null: no Authorization. */
  readonly apiKey: string | null;
  /** Headers added to every request (profile target.headers plus inferbench's defaults). */
  readonly headers: Readonly<Record<string, string>>;
  /** Header that carries a fresh id per request (recorded in RequestRecord.requestId); null sends none. */
  readonly requestIdHeader: string | null;
  /** Send a W3C `traceparent` with a fresh trace id per request (recorded in RequestRecord.traceId); absent: none. */
  readonly traceContext?: boolean;
  /** Upper bound on concurrent requests, to size the connection pool. */
  readonly maxConnections: number;
  readonly timeouts: TimeoutSpec;
  readonly retry: RetrySpec;
  readonly encoding: EncodingSpec;
  /** target.tls (CA bundle, client certificate, verification); absent or null: Node's defaults. */
  readonly tls?: TlsSpec | null;
  /** The proxy environment (proxy.ts, from cli/); absent or null: direct connections. */
  readonly proxy?: ProxySettings | null;
  /**
   * The clock every timestamp of a record is read from: the run's, so its times and the records' can be
   * subtracted. Absent: the system clock.
   */
  readonly clock?: Clock;
}

export interface InferenceClient {
  /**
   * Sends one RequestPlan's body and headers to the client's API (streaming when body.stream is true), encoded
   * once for every attempt, and fills `record`: timestamps in
   * integer microseconds of performance.now(), status, usage, time_info, error class. Resolves when the
   * request has ended in any way; never rejects. An aborted `signal` ends it as a timeout of phase
   * `total` (graceful-stop expiry) without waiting for the server.
   */
  send(plan: Pick<RequestPlan, 'body' | 'headers'>, record: RequestRecord, signal?: AbortSignal): Promise<void>;
  /** GET /v1/models: ids the target serves (to resolve a scenario without models). */
  listModels(signal?: AbortSignal): Promise<string[]>;
  /** Closes the pool; in-flight requests are aborted. */
  close(): Promise<void>;
}
