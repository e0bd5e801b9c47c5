/**
 * The composition root of the client, for one API (apis/: its path and response reader): undici Clients (keep-alive, one connection per concurrent request,
 * no pipelining; handed out by connection-set.ts; direct or through the environment's proxy, with the
 * profile's TLS options: connection-route.ts) with the auth interceptor composed on, the body encoder
 * the profile asks for, and the retry wrapper around one attempt (attempt-once.ts). send() never
 * rejects: every failure is a classified fact in the RequestRecord.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'undici';
import { API_PATHS } from '../protocol/apis.js';
import { HEADER } from '../protocol/headers.js';
import { apiHeadersOf, authSchemeOf } from './apis/api-auth.js';
import { API_READERS } from './apis/api-readers.js';
import { systemClock } from '../util/clock.js';
import type { AttemptContext } from './attempt-handler.js';
import { createAttemptOnce } from './attempt-once.js';
import { authInterceptor } from './auth-interceptor.js';
import { createBodyEncoder } from './body-encoders.js';
import { createRoute, type Slot } from './connection-route.js';
import { ConnectionSet } from './connection-set.js';
import { listModelIds } from './list-models.js';
import { NO_PROXY_SETTINGS, proxyFor } from './proxy.js';
import { markSent, type RequestRecord } from './request-record.js';
import { withRetry } from './retry.js';
import { createScrubber, scrubServerStrings } from './scrub-secret.js';
import { loadTlsOptions } from './tls-options.js';
import { newTraceContext } from './trace-context.js';
import type { RequestPlan } from '../workload/request-plan.js';
import type { ClientOptions, InferenceClient } from './types.js';

/** Idle keep-alive connections are kept this long (a run's gaps between requests are shorter). */
const KEEP_ALIVE_MS = 60_000;
/** undici's own timers trail ours by this much: they only matter when ours cannot act (see below). */
const BACKSTOP_SLACK_MS = 1_000;

/** A limit in ms for undici (0 = off) that fires only after request-deadlines.ts would have. */
function backstopMs(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms + BACKSTOP_SLACK_MS : 0;
}

function splitBaseUrl(baseUrl: string): { origin: string; pathPrefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
}

/** Keep-alive and timeouts of every undici Client: one request at a time per connection, no pipelining. */
function connectionOptions(timeouts: ClientOptions['timeouts']): Client.Options {
  return {
    pipelining: 1,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    // request-deadlines.ts is the authority; undici's timers are backstops for what it no longer
    // watches: a body that keeps its connection busy after [DONE] ended the request is cut by idleness.
    headersTimeout: backstopMs(timeouts.headersMs),
    bodyTimeout: backstopMs(timeouts.idleMs),
  };
}

type Headers = Readonly<Record<string, string>>;

/**
 * The target's headers merged with an encoding's. An encoder's headers object is constant, so the merge
 * is made once and each request copies one object (one spread per request instead of two).
 */
function headerMerger(target: Headers): (encoding: Headers) => Headers {
  let mergedFor: Headers | null = null;
  let merged: Headers = target;
  return (encoding) => {
    if (encoding !== mergedFor) {
      mergedFor = encoding;
      merged = { ...target, ...encoding };
    }
    return merged;
  };
}

/** Creates a client for one target. Close it when the run ends. */
export function createInferenceClient(options: ClientOptions): InferenceClient {
  const { origin, pathPrefix } = splitBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const connectMs = options.timeouts.connectMs;
  const apiKey = options.apiKey;
  const api = options.api ?? 'chat';
  // The API's own headers (anthropic-version), under the target's: a profile header of the same name wins.
  const targetHeaders: Headers = { ...apiHeadersOf(api), ...options.headers };
  const route = createRoute({
    origin,
    proxy: proxyFor(origin, options.proxy ?? NO_PROXY_SETTINGS),
    tls: loadTlsOptions(options.tls),
    connectMs,
    clientOptions: connectionOptions(options.timeouts),
    // Without a key there is nothing to intercept: no compose, so no handler wrapper on every callback.
    clock,
    wrap: (connection) =>
      apiKey === null || apiKey === '' ? connection : connection.compose(authInterceptor(apiKey, authSchemeOf(api))),
  });
  const connections = new ConnectionSet<Slot>(options.maxConnections, route.openSlot);
  /** GET /v1/models goes over a connection of its own, opened when first asked. */
  let modelsConnection: Slot | null = null;
  const routeHeaders = route.headers;
  const encode = createBodyEncoder(options.encoding);
  const scrub = createScrubber(options.apiKey);
  const apiPath = `${route.pathOrigin}${pathPrefix}${API_PATHS[api]}`;
  const requestIdHeader = options.requestIdHeader;
  const targetHeadersWith = headerMerger(targetHeaders);
  let closed = false;
  const context: AttemptContext = {
    timeouts: options.timeouts,
    clock,
    scrub,
    isClosed: () => closed,
    api: API_READERS[api],
  };

  const attemptOnce = createAttemptOnce({ connections, routeHeaders, apiPath, context });
  const attempt = withRetry(attemptOnce, options.retry, clock);

  return {
    async send(
      plan: Pick<RequestPlan, 'body' | 'headers'>,
      record: RequestRecord,
      signal?: AbortSignal,
    ): Promise<void> {
      try {
        if (closed) {
          record.errorClass = 'timeout';
          record.timeoutPhase = 'total';
          record.errorMessage = 'client closed';
          record.endUs = clock.nowUs();
          markSent(record, record.endUs);
          return;
        }
        const encoded = encode(plan.body);
        const headers =
          plan.headers === undefined
            ? { ...targetHeadersWith(encoded.headers) }
            : { ...targetHeaders, ...plan.headers, ...encoded.headers };
        if (requestIdHeader !== null) {
          // One id per request, the same on each attempt: every attempt is found under it in the server's logs.
          record.requestId = randomUUID();
          headers[requestIdHeader] = record.requestId;
        }
        if (options.traceContext === true) {
          const trace = newTraceContext();
          record.traceId = trace.traceId;
          headers[HEADER.traceparent] = trace.traceparent;
        }
        await attempt({ payload: encoded.payload, headers, stream: plan.body['stream'] === true }, record, signal);
      } catch (error) {
        // Only a harness bug (an unencodable body) lands here; it is still data, not an exception.
        if (record.errorClass === null) {
          record.errorClass = 'connect';
          record.errorMessage = scrub(`request not sent: ${error instanceof Error ? error.message : String(error)}`);
          record.endUs = clock.nowUs();
          markSent(record, record.endUs);
        }
      }
      if (apiKey !== null && apiKey !== '') scrubServerStrings(record, scrub);
    },

    listModels(signal?: AbortSignal): Promise<string[]> {
      modelsConnection ??= route.openSlot();
      const headers = routeHeaders === null ? targetHeaders : { ...targetHeaders, ...routeHeaders };
      return listModelIds(
        modelsConnection.dispatcher,
        `${route.pathOrigin}${pathPrefix}`,
        headers,
        options.timeouts,
        scrub,
        signal,
      );
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([connections.destroy(), modelsConnection?.destroy()]);
    },
  };
}
