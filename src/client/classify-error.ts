/**
 * Maps what went wrong to the error classes of DESIGN.md: HTTP statuses, and the socket-level errors
 * undici and Node report (by their stable `code`, never by message text).
 */
import type { ErrorClass } from './request-record.js';

/** Error class of a non-2xx status; null for 2xx. 3xx (not followed) counts as a client-side 4xx. */
export function classifyStatus(status: number): ErrorClass | null {
  if (status >= 200 && status < 300) return null;
  if (status === 429) return 'http_429';
  if (status >= 500) return 'http_5xx';
  return 'http_4xx';
}

/** Could not get a connection at all: nothing was sent. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  // The proxy (HTTPS_PROXY, ...) refused the tunnel: connect-timing.ts.
  'INFERBENCH_PROXY_CONNECT',
]);

/** OpenSSL's failures (a handshake alert such as a client certificate the server requires): no connection. */
function isTlsFailure(code: string): boolean {
  return code.startsWith('ERR_SSL_');
}

/** The response did not arrive whole: the server (or something between) closed or broke the stream. */
const PARSE_CODES = new Set([
  'HPE_INVALID_CONSTANT',
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_INVALID_HEADER_TOKEN',
  'HPE_INVALID_STATUS',
  'HPE_INVALID_VERSION',
]);

/** Result of classifying a socket-level error. */
export interface SocketErrorClass {
  readonly errorClass: ErrorClass;
  /** The phase of undici's own timers (backstops behind request-deadlines.ts), else null. */
  readonly timeoutPhase: 'connect' | 'headers' | 'idle' | null;
}

function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error ? codeOf(cause) : '';
}

/**
 * A socket-level error: connect refused / DNS / TLS (certificates, handshake alerts) / a proxy's refusal -> connect; undici's connect, headers and body
 * timeouts -> timeout (phase connect, headers, idle); malformed HTTP -> bad_chunk; everything else (ECONNRESET, "other side closed", EPIPE,
 * a body shorter than its content-length) -> reset.
 */
export function classifySocketError(error: unknown): SocketErrorClass {
  const code = codeOf(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return { errorClass: 'timeout', timeoutPhase: 'connect' };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { errorClass: 'timeout', timeoutPhase: 'headers' };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { errorClass: 'timeout', timeoutPhase: 'idle' };
  if (CONNECT_CODES.has(code) || isTlsFailure(code)) return { errorClass: 'connect', timeoutPhase: null };
  if (PARSE_CODES.has(code) || (error instanceof Error && error.name === 'HTTPParserError'))
    return { errorClass: 'bad_chunk', timeoutPhase: null };
  return { errorClass: 'reset', timeoutPhase: null };
}
