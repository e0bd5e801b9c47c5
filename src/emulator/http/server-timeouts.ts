/**
 * The emulator's connection timeouts: how long an idle keep-alive connection is kept, how long a client
 * may take to send a request's headers, and the whole request (headers and body). The last two close
 * slow or trickling clients that would otherwise hold a socket forever; none of them limits how long a
 * response (a long stream) takes, only how long the client takes to send. 0 disables one.
 */
import type { Server, ServerOptions } from 'node:http';

export interface ServerTimeouts {
  /** Idle time after a response before a keep-alive connection is closed. */
  readonly keepAliveTimeoutMs: number;
  /** Time from a request's first byte (or the connection) to the end of its headers. */
  readonly headersTimeoutMs: number;
  /** Time from a request's first byte to the end of its body. */
  readonly requestTimeoutMs: number;
}

/**
 * Keep-alive 65 s: longer than the 60 s idle timeout of common load balancers, so a load generator's
 * pooled connections survive pauses as they would in front of a hosted service (Node's own 5 s would
 * make the emulator reconnect where a real deployment would not; the service's own value is unknown).
 * Headers 60 s and request 300 s are Node's defaults.
 */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  keepAliveTimeoutMs: 65_000,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
};

/** The defaults overridden by each timeout given (an undefined one keeps its default). */
export function resolveServerTimeouts(given: Partial<ServerTimeouts> = {}): ServerTimeouts {
  const defined = Object.entries(given).filter(([, ms]) => ms !== undefined);
  return { ...DEFAULT_SERVER_TIMEOUTS, ...Object.fromEntries(defined) };
}

/** The problem with a set of timeouts, or undefined when they can be used. */
export function serverTimeoutsProblem(timeouts: ServerTimeouts): string | undefined {
  for (const [name, ms] of Object.entries(timeouts)) {
    if (!Number.isFinite(ms) || ms < 0) return `${name} must be a finite number of milliseconds >= 0, got ${ms}`;
  }
  const { headersTimeoutMs, requestTimeoutMs } = timeouts;
  if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs)
    return `the headers timeout (${headersTimeoutMs} ms) must be at most the request timeout (${requestTimeoutMs} ms)`;
  return undefined;
}

/**
 * Options for `createServer`. Node checks the headers and request timeouts on an interval (30 s by
 * default, so a 2 s timeout could take 32 s); a quarter of the shortest timeout, at most 1 s, keeps the
 * closing time within 25% (and a second) of the configured value. The check walks a list in C++: cheap
 * even with thousands of connections.
 */
export function serverTimeoutOptions(timeouts: ServerTimeouts): ServerOptions {
  const active = [timeouts.headersTimeoutMs, timeouts.requestTimeoutMs].filter((ms) => ms > 0);
  const shortest = active.length > 0 ? Math.min(...active) : 1_000;
  return {
    headersTimeout: Math.round(timeouts.headersTimeoutMs),
    requestTimeout: Math.round(timeouts.requestTimeoutMs),
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(shortest / 4))),
  };
}

/** Applies what createServer's options do not carry (the keep-alive timeout). */
export function applyKeepAliveTimeout(server: Server, timeouts: ServerTimeouts): void {
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
}
