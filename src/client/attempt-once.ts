/**
 * One attempt of a request over the client's pool: counts it, wires the abort signal, waits for a free
 * connection, then dispatches the encoded request with a fresh AttemptHandler (attempt-handler.ts), which
 * fills the record. The retry wrapper (retry.ts) calls it once per attempt; it never rejects.
 */
import { offAbort, onAbort } from './abort-fanout.js';
import { AttemptHandler, type AttemptContext } from './attempt-handler.js';
import type { Slot } from './connection-route.js';
import type { ConnectionSet } from './connection-set.js';
import type { Attempt } from './retry.js';

/** Where an attempt goes: the pool, what every request adds, and what attempts share. */
export interface AttemptTarget {
  readonly connections: ConnectionSet<Slot>;
  /** The route's headers (connection-route.ts); null when it adds none. */
  readonly routeHeaders: Readonly<Record<string, string>> | null;
  /** Path of the API's POST (protocol/apis.ts), with the route's origin and the base URL's prefix. */
  readonly apiPath: string;
  readonly context: AttemptContext;
}

/** The Attempt of one client, created once with the client (nothing here is built per request). */
export function createAttemptOnce(target: AttemptTarget): Attempt {
  const { connections, routeHeaders, apiPath, context } = target;
  return (request, record, signal) => {
    record.attempts += 1;
    const handler = new AttemptHandler(record, context, request.stream, record.attempts === 1);
    const atUs = context.clock.nowUs();
    if (signal?.aborted) {
      handler.abort('aborted before sending');
      return handler.done;
    }
    const abortAttempt = (): void => handler.abort('aborted (graceful stop expired)');
    if (signal !== undefined) onAbort(signal, abortAttempt);
    handler.started(atUs);
    connections.acquire((connection) => {
      // Ended while waiting for a connection (connect timeout, abort): the connection goes to the next.
      if (handler.settled) return false;
      if (connection === null) {
        handler.dispatchFailed(new Error('client closed'));
        return true;
      }
      handler.onConnectionDone(() => connections.release(connection));
      handler.useConnectTimings(connection.timings);
      const headers = routeHeaders === null ? request.headers : { ...request.headers, ...routeHeaders };
      try {
        connection.dispatcher.dispatch({ path: apiPath, method: 'POST', headers, body: request.payload }, handler);
      } catch (error) {
        handler.dispatchFailed(error);
      }
      return true;
    });
    if (signal === undefined) return handler.done;
    return handler.done.then((outcome) => {
      offAbort(signal, abortAttempt);
      return outcome;
    });
  };
}
