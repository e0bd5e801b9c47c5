/**
 * Connect and TLS handshake times of NEW connections, stamped on the socket's own events with the
 * monotonic clock: undici's connector (buildConnector) is wrapped, so every connection a slot opens, and
 * only those, leaves its timestamps in the slot's ConnectTimings until the request dispatched on it takes
 * them. A request on a kept-alive connection finds nothing there and keeps NaN (no value, not 0).
 *
 * Through a CONNECT tunnel the TCP connect is to the proxy, and the target's TLS handshake starts when
 * the proxy has answered the CONNECT: the tunnel connector here does what undici's ProxyAgent does, in
 * the open, so both moments can be stamped.
 */
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { Client } from 'undici';
import type { Clock } from '../util/clock.js';
import type { RequestRecord } from './request-record.js';

/** Timestamps (integer µs, NaN when not reached) of the newest connection of one slot. */
export class ConnectTimings {
  connectStartUs = Number.NaN;
  connectEndUs = Number.NaN;
  tlsStartUs = Number.NaN;
  tlsEndUs = Number.NaN;
  /** The client's clock, that the stamps are read from. */
  readonly clock: Clock;
  #fresh = false;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** A new connection is being opened now (after the DNS lookup, when there is one: see `lookedUp`). */
  begin(atUs: number): void {
    this.connectStartUs = atUs;
    this.connectEndUs = Number.NaN;
    this.tlsStartUs = Number.NaN;
    this.tlsEndUs = Number.NaN;
    this.#fresh = true;
  }

  /** Copies the timings of a connection opened for this request into `record`, once; nothing for a reused one. */
  takeInto(record: RequestRecord): void {
    if (!this.#fresh) return;
    this.#fresh = false;
    record.connectStartUs = this.connectStartUs;
    record.connectEndUs = this.connectEndUs;
    record.tlsStartUs = this.tlsStartUs;
    record.tlsEndUs = this.tlsEndUs;
  }
}

/** buildConnector's connector returns the socket it made, though its type says void. */
function connectWith(
  connector: buildConnector.connector,
  options: buildConnector.Options,
  callback: buildConnector.Callback,
): Socket | undefined {
  return (connector as unknown as (o: buildConnector.Options, c: buildConnector.Callback) => Socket | undefined)(
    options,
    callback,
  );
}

/**
 * `connector` with its sockets' events stamped into `timings`. The stamps are prepended listeners, so they
 * run before undici's own, which starts writing the request the moment the socket is ready.
 */
export function timedConnector(connector: buildConnector.connector, timings: ConnectTimings): buildConnector.connector {
  return (options, callback) => {
    const clock = timings.clock;
    timings.begin(clock.nowUs());
    const socket = connectWith(connector, options, callback);
    if (socket === undefined) return;
    // The DNS lookup is not connecting (k6's http_req_connecting leaves it out too).
    socket.prependOnceListener('lookup', () => {
      timings.connectStartUs = clock.nowUs();
    });
    socket.prependOnceListener('connect', () => {
      timings.connectEndUs = clock.nowUs();
      if (options.protocol === 'https:') timings.tlsStartUs = timings.connectEndUs;
    });
    if (options.protocol === 'https:') {
      socket.prependOnceListener('secureConnect', () => {
        timings.tlsEndUs = clock.nowUs();
      });
    }
  };
}

/** The proxy's refusal or failure, with a code classify-error.ts counts as `connect`. */
function proxyFailure(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, { cause }), { code: 'INFERBENCH_PROXY_CONNECT' });
}

/** A connection to the proxy of one slot (for its CONNECT requests) and the connector of its tunnels. */
export interface Tunnel {
  readonly connector: buildConnector.connector;
  destroy(): Promise<void>;
}

/**
 * Opens each connection of a slot as a tunnel: CONNECT host:port on a fresh connection to `proxy` (made
 * by `proxyConnector`, timed as the connect), then, for an https target, TLS to the target over it with
 * `targetConnector` (timed as the handshake).
 */
export function createTunnel(
  proxy: URL,
  proxyHeaders: Readonly<Record<string, string>>,
  proxyConnector: buildConnector.connector,
  targetConnector: buildConnector.connector,
  timings: ConnectTimings,
): Tunnel {
  // One request at a time, one connection: each CONNECT takes its socket away, the next opens another.
  const proxyClient = new Client(proxy.origin, { connect: timedConnector(proxyConnector, timings) });
  const label = `${proxy.protocol}//${proxy.host}`;
  const connector: buildConnector.connector = (options, callback) => {
    const port =
      options.port !== '' && options.port !== undefined ? options.port : options.protocol === 'https:' ? '443' : '80';
    const authority = `${options.hostname}:${port}`;
    proxyClient.connect({ path: authority, headers: { ...proxyHeaders, host: authority } }).then(
      (upgrade) => {
        // The CONNECT's raw TCP socket (typed as a Duplex by undici).
        const socket = upgrade.socket as Socket;
        const statusCode = upgrade.statusCode;
        if (statusCode !== 200) {
          socket.destroy();
          callback(proxyFailure(`proxy ${label} answered CONNECT ${authority} with ${statusCode}`), null);
          return;
        }
        if (options.protocol !== 'https:') {
          callback(null, socket);
          return;
        }
        timings.tlsStartUs = timings.clock.nowUs();
        const tlsSocket = connectWith(targetConnector, { ...options, httpSocket: socket }, callback);
        tlsSocket?.prependOnceListener('secureConnect', () => {
          timings.tlsEndUs = timings.clock.nowUs();
        });
      },
      (error: unknown) => {
        const code = (error as { code?: unknown }).code;
        // A refused or timed-out connection to the proxy keeps its own code; a refused CONNECT ("bad connect") gets ours.
        if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') {
          callback(error as Error, null);
          return;
        }
        callback(
          proxyFailure(
            `proxy ${label} refused CONNECT ${authority}: ${error instanceof Error ? error.message : String(error)}`,
            error,
          ),
          null,
        );
      },
    );
  };
  return { connector, destroy: () => proxyClient.destroy() };
}
