/**
 * Answers what Node's HTTP parser rejects before a request reaches a handler (malformed or conflicting
 * headers such as two different `Content-Length`s, headers too large, a client too slow to send its
 * headers or body) with the API's flat error body instead of Node's empty one, then closes the
 * connection. Nothing is written when a response has already begun on that connection (a handler that
 * answered early while the client still trickles its body), so the client never reads two responses.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiErrorBody } from '../../protocol/errors.js';
import { CONTENT_TYPE } from '../../protocol/headers.js';

/** How long a rejected client has to read the answer before its connection is destroyed. */
const CLOSE_GRACE_MS = 1_000;

interface ClientErrorAnswer {
  readonly status: number;
  readonly body: ApiErrorBody;
}

function answerFor(error: NodeJS.ErrnoException): ClientErrorAnswer {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        body: {
          message: 'The request was not received in time: the client sent its headers or body too slowly.',
          type: 'invalid_request_error',
          param: null,
          code: 'request_timeout',
        },
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        body: {
          message: 'The request headers are too large.',
          type: 'invalid_request_error',
          param: null,
          code: 'request_too_large',
        },
      };
    default:
      return {
        status: 400,
        body: {
          // The parser's reason ("Duplicate Content-Length", "Invalid header value char") names the fault.
          message: `The request is not valid HTTP/1.1: ${String((error as { reason?: unknown }).reason ?? error.code ?? 'malformed request')}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'wrong_api_format',
        },
      };
  }
}

/** Remembers each connection's current response, so a client error never writes over one. */
export class ClientErrorResponder {
  private readonly responses = new WeakMap<Duplex, ServerResponse>();

  /** Call at the start of each request. */
  track(req: IncomingMessage, res: ServerResponse): void {
    this.responses.set(req.socket, res);
  }

  /** The server's 'clientError' listener. */
  readonly answer = (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const started = this.responses.get(socket)?.headersSent ?? false;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const { status, body } = answerFor(error);
    const payload = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${CONTENT_TYPE.json}\r\n` +
        `content-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`,
    );
    // Closing at once would reset the connection while unread request bytes wait in the kernel, and the
    // client could lose the answer; a client that never closes its side is cut after the grace.
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
}
