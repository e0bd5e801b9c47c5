/**
 * Per new connection, the times k6 calls http_req_connecting and http_req_tls_handshaking: pure functions
 * of a RequestRecord, integer microseconds in and out. NaN for a request sent on a reused
 * keep-alive connection (it opened none), and tls_handshake_ms NaN on plain http or when the handshake
 * failed. Through a proxy, the TCP connect is the one to the proxy.
 */
import type { RequestRecord } from '../client/request-record.js';

/** TCP connect of the connection this request opened (after the DNS lookup). */
export function connectUs(record: RequestRecord): number {
  return record.connectEndUs - record.connectStartUs;
}

/** TLS handshake of the connection this request opened (to the target, also inside a proxy tunnel). */
export function tlsHandshakeUs(record: RequestRecord): number {
  return record.tlsEndUs - record.tlsStartUs;
}
