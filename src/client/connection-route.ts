/**
 * How a client's connections reach the target, decided once per client: directly, through an HTTP proxy
 * in absolute form (an http target: the proxy sees and forwards each request, as curl does with
 * HTTP_PROXY), or through a CONNECT tunnel (an https target: the proxy sees only the encrypted bytes).
 * Either way each request slot is ONE undici Client with one connection (connection-set.ts), opened by a
 * timed connector (connect-timing.ts) with the target's TLS options (tls-options.ts).
 */
import { buildConnector, Client, type Dispatcher } from 'undici';
import type { Clock } from '../util/clock.js';
import { ConnectTimings, createTunnel, timedConnector } from './connect-timing.js';
import { proxyAuthorization } from './proxy.js';
import type { TlsConnectOptions } from './tls-options.js';

/** One request slot: its connection and the timings of the connections it opens. */
export interface Slot {
  readonly dispatcher: Dispatcher;
  readonly timings: ConnectTimings;
  destroy(): Promise<void>;
}

export interface RouteOptions {
  /** The target's origin, e.g. https://api.example.com:8443. */
  readonly origin: string;
  /** The proxy to go through (proxy.ts proxyFor), or null. */
  readonly proxy: URL | null;
  readonly tls: TlsConnectOptions;
  /** Connect timeout of one connection (a backstop: request-deadlines.ts is the authority); NaN or 0: undici's default. */
  readonly connectMs: number;
  /** Keep-alive, pipelining and timeout options of every Client. */
  readonly clientOptions: Client.Options;
  /** Composes interceptors (auth) onto each slot's Client. */
  readonly wrap: (client: Dispatcher) => Dispatcher;
  /** The client's clock: new connections' connect and TLS times are stamped with it. */
  readonly clock: Clock;
}

export interface Route {
  /** Put before a request's path: '' directly and in a tunnel, the target's origin for an HTTP proxy (absolute form). */
  readonly pathOrigin: string;
  /** Headers every request adds (host and proxy credentials for an HTTP proxy); null when none. */
  readonly headers: Readonly<Record<string, string>> | null;
  openSlot(): Slot;
}

export function createRoute(options: RouteOptions): Route {
  const target = new URL(options.origin);
  const timeout = Number.isFinite(options.connectMs) && options.connectMs > 0 ? options.connectMs : undefined;
  // One connector for every slot, as an undici Pool shares one: TLS sessions are resumed across slots.
  const targetConnector = buildConnector({ ...options.tls, timeout });
  const { proxy } = options;
  const slot = (dispatcher: Dispatcher, timings: ConnectTimings, extra?: () => Promise<void>): Slot => ({
    dispatcher: options.wrap(dispatcher),
    timings,
    destroy: async () => {
      await Promise.all([dispatcher.destroy(), extra?.()]);
    },
  });
  if (proxy === null) {
    return {
      pathOrigin: '',
      headers: null,
      openSlot: () => {
        const timings = new ConnectTimings(options.clock);
        return slot(
          new Client(target.origin, { ...options.clientOptions, connect: timedConnector(targetConnector, timings) }),
          timings,
        );
      },
    };
  }
  // The proxy's own certificate is checked against the system CAs (target.tls is the target's).
  const proxyConnector = buildConnector({ timeout });
  const authorization = proxyAuthorization(proxy);
  const proxyHeaders: Record<string, string> = authorization === null ? {} : { 'proxy-authorization': authorization };
  if (target.protocol === 'http:') {
    return {
      pathOrigin: target.origin,
      headers: { ...proxyHeaders, host: target.host },
      openSlot: () => {
        const timings = new ConnectTimings(options.clock);
        return slot(
          new Client(proxy.origin, { ...options.clientOptions, connect: timedConnector(proxyConnector, timings) }),
          timings,
        );
      },
    };
  }
  return {
    pathOrigin: '',
    headers: null,
    openSlot: () => {
      const timings = new ConnectTimings(options.clock);
      const tunnel = createTunnel(proxy, proxyHeaders, proxyConnector, targetConnector, timings);
      return slot(new Client(target.origin, { ...options.clientOptions, connect: tunnel.connector }), timings, () =>
        tunnel.destroy(),
      );
    },
  };
}
