/**
 * Request body encodings: the content type is a `kind` with an encoder in a registry the compiler
 * checks (JSON, MessagePack), and gzip is a decorator over whichever was chosen (the API accepts
 * `Content-Encoding: gzip` with either content type).
 *
 * The MessagePack encoder is loaded when a client asks for it (its CommonJS build, so synchronously): most
 * runs send JSON, and every worker thread of `run --workers` imports this module.
 */
import { createRequire } from 'node:module';
import type * as Msgpack from '@msgpack/msgpack';
import { CONTENT_TYPE, HEADER } from '../protocol/headers.js';
import { gzipBody } from './gzip-encoding.js';
import type { ClientOptions } from './types.js';

type EncodingSpec = ClientOptions['encoding'];

/** A request body ready for the socket, with the headers that describe it. */
export interface EncodedBody {
  readonly payload: string | Uint8Array;
  /** Headers this encoding adds (content-type, content-encoding). */
  readonly headers: Readonly<Record<string, string>>;
}

/** Encodes one request body. */
export type BodyEncoder = (body: Readonly<Record<string, unknown>>) => EncodedBody;

type ContentTypeKind = EncodingSpec['contentType'];

const JSON_HEADERS = { [HEADER.contentType]: CONTENT_TYPE.json } as const;
const MSGPACK_HEADERS = { [HEADER.contentType]: CONTENT_TYPE.msgpack } as const;

const require = createRequire(import.meta.url);

/** One encoder per content type, created once per client (the msgpack Encoder reuses its buffer). */
const CONTENT_TYPE_ENCODERS = {
  json: (): BodyEncoder => (body) => ({ payload: JSON.stringify(body), headers: JSON_HEADERS }),
  msgpack: (): BodyEncoder => {
    const { Encoder } = require('@msgpack/msgpack') as typeof Msgpack;
    const encoder = new Encoder({ ignoreUndefined: true });
    return (body) => ({ payload: encoder.encode(body), headers: MSGPACK_HEADERS });
  },
} satisfies Record<ContentTypeKind, () => BodyEncoder>;

/** The body encoder the profile's `encoding` asks for. */
export function createBodyEncoder(spec: EncodingSpec): BodyEncoder {
  const base = CONTENT_TYPE_ENCODERS[spec.contentType]();
  return spec.gzip ? gzipBody(base) : base;
}
