/**
 * One setup GET to the target over a connection of its own (not the run's pool), through the proxy and TLS
 * settings of the run, with one time limit for every phase: the public catalog, the management API and the
 * model list a `models:` selector asks before a run. Failures without an answer are TARGET_UNREACHABLE,
 * naming the URL; what to make of an answer (its status and body) is the caller's.
 */
import type { Dispatcher } from 'undici';
import { InferbenchError } from '../errors.js';
import type { TlsSpec } from '../profile/resolved-profile.js';
import { createRoute } from './connection-route.js';
import { systemClock } from '../util/clock.js';
import { errorDetails } from './error-body.js';
import { isObject } from './json-shape.js';
import { BodyCollector, BodyTooLargeError, MAX_SETUP_BODY_BYTES } from './list-models.js';
import { NO_PROXY_SETTINGS, proxyFor, type ProxySettings } from './proxy.js';
import { loadTlsOptions } from './tls-options.js';
import type { ClientOptions } from './types.js';

export interface TargetRequest {
  /** Base URL without /v1. */
  readonly baseUrl: string;
  /** The run's headers (integration header, target.headers); an Authorization only where the endpoint takes one. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tls: TlsSpec | null;
  readonly proxy: ProxySettings | null;
  /** Give up after this long, per phase (default 10 s). */
  readonly timeoutMs?: number;
  /** Refuse an answer larger than this (default MAX_SETUP_BODY_BYTES, 16 MiB). */
  readonly maxBodyBytes?: number;
}

/** An open connection to the target: prefix request paths with `pathPrefix` and send `headers`. */
export interface TargetConnection {
  readonly dispatcher: Dispatcher;
  /** The base URL's path (and the origin, through an HTTP proxy), without a trailing "/". */
  readonly pathPrefix: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeouts: ClientOptions['timeouts'];
}

export const DEFAULT_TARGET_GET_TIMEOUT_MS = 10_000;

/** Opens one connection, hands it to `use`, and closes it whatever happens. */
export async function withTargetConnection<T>(
  request: TargetRequest,
  use: (connection: TargetConnection) => Promise<T>,
): Promise<T> {
  const limitMs = request.timeoutMs ?? DEFAULT_TARGET_GET_TIMEOUT_MS;
  const url = new URL(request.baseUrl);
  const route = createRoute({
    origin: url.origin,
    // Set-up requests are not measured: connection timings on the process's clock.
    clock: systemClock,
    proxy: proxyFor(url.origin, request.proxy ?? NO_PROXY_SETTINGS),
    tls: loadTlsOptions(request.tls),
    connectMs: limitMs,
    clientOptions: { pipelining: 1 },
    wrap: (dispatcher) => dispatcher,
  });
  const slot = route.openSlot();
  try {
    return await use({
      dispatcher: slot.dispatcher,
      pathPrefix: `${route.pathOrigin}${url.pathname.replace(/\/+$/, '')}`,
      headers: route.headers === null ? request.headers : { ...request.headers, ...route.headers },
      timeouts: { connectMs: limitMs, headersMs: limitMs, firstTokenMs: limitMs, idleMs: limitMs, totalMs: limitMs },
    });
  } finally {
    await slot.destroy().catch(() => undefined);
  }
}

/**
 * GET {base}{path}: the status and body of the answer; throws TARGET_UNREACHABLE (naming the URL) when no
 * answer came in time. `scrub` removes a key the request carried from error messages.
 */
export async function getFromTarget(
  request: TargetRequest,
  path: string,
  scrub: (message: string) => string = (message) => message,
): Promise<{ status: number; body: string }> {
  const url = `${request.baseUrl.replace(/\/+$/, '')}${path}`;
  try {
    return await withTargetConnection(request, async (connection) => {
      const collector = new BodyCollector(connection.timeouts, request.maxBodyBytes ?? MAX_SETUP_BODY_BYTES);
      // Awaited below; a failure after that must not surface as an unhandled rejection.
      collector.done.catch(() => undefined);
      try {
        collector.start();
        connection.dispatcher.dispatch(
          { path: `${connection.pathPrefix}${path}`, method: 'GET', headers: connection.headers },
          collector,
        );
        return await collector.done;
      } finally {
        // Stops its timers when it did not settle (a no-op when it did).
        collector.fail(new Error('request ended'));
      }
    });
  } catch (error) {
    if (error instanceof InferbenchError) throw error;
    if (error instanceof BodyTooLargeError)
      throw new InferbenchError('TARGET_ERROR', `GET ${url} answered more than ${error.maxBytes} bytes`, {
        hint: 'check the base URL: it should be the service root (without /v1)',
      });
    const code = isObject(error) && typeof error['code'] === 'string' ? `${error['code']}: ` : '';
    throw new InferbenchError(
      'TARGET_UNREACHABLE',
      scrub(`GET ${url} failed: ${code}${error instanceof Error ? error.message : String(error)}`),
      { cause: error, hint: 'check that the target is running and the base URL is right' },
    );
  }
}

/** The body as JSON; TARGET_ERROR naming the URL when it is not (its excerpt through `scrub`). */
export function parseTargetJson(body: string, url: string, scrub: (message: string) => string = (m) => m): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new InferbenchError(
      'TARGET_ERROR',
      scrub(`GET ${url} did not answer JSON: ${JSON.stringify(body.slice(0, 80))}`),
      { hint: 'check the base URL: it should be the service root (without /v1)' },
    );
  }
}

/** TARGET_ERROR for an answer that is not 200: the URL, the status and the server's message (through `scrub`). */
export function targetErrorAnswer(
  url: string,
  status: number,
  body: string,
  hint: string,
  scrub: (message: string) => string = (m) => m,
): InferbenchError {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: its first characters say what it is.
  }
  const detail = errorDetails(parsed).message ?? body.slice(0, 120);
  return new InferbenchError('TARGET_ERROR', scrub(`GET ${url} answered ${status}${detail ? `: ${detail}` : ''}`), {
    hint,
  });
}
