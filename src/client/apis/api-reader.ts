/**
 * What the client needs of an API to read its responses (one module per API in this folder, gathered in
 * api-readers.ts): how a parsed stream event and a whole non-streaming body become facts of the
 * RequestRecord, and where a token's text lies in a stream event (for the chunk parser's templates).
 * The path is protocol/apis.ts's API_PATHS; the request body is the workload's (workload/apis/).
 *
 * The contract every reader keeps, so that measure/ derives the same metrics from every API:
 * - firstTokenUs / lastTokenUs / tokenChunkTimesUs: the events that carry generated text (answer,
 *   reasoning, tool-call arguments), never role-only, empty or bookkeeping events (TTFT is the first);
 *   firstOutputUs likewise for answer text and tool calls only (reasoning excluded).
 * - outputText (and content when record.keepContent) gets the answer text; reasoningText the reasoning.
 * - usage is stored in chat's shape (prompt_tokens, completion_tokens, details): an API with other names
 *   (input_tokens / output_tokens) converts them here, so every later layer reads one shape.
 * - finishReason is set when the API says the answer ended (the stream's end check reads it: a stream
 *   that ends without it or `[DONE]` is `stream_truncated`).
 * The handler (attempt-handler.ts) has already counted the event (chunkCount), set firstChunkUs, and
 * turned `event: error` and any payload with an `error` member into `stream_error`: readers see only
 * the other events, except an API whose errors have another shape: its streamError says so.
 */
import type { ErrorDetails } from '../error-body.js';
import type { Json } from '../json-shape.js';
import type { RequestRecord } from '../request-record.js';

/** Where a token's text lies in a parsed stream event: the object holding it, its key and the text. */
export interface TextSlot {
  readonly holder: Json;
  readonly field: string;
  readonly text: string;
}

/**
 * The one text slot of a token event, or null when the event is not that shape (then it is never
 * templated: chunk-template.ts JSON.parses it in full). Called only when a template is being made, never
 * per event.
 */
export type TextSlotFinder = (event: unknown) => TextSlot | null;

/** Why a whole body is not an answer of its API although it parsed (a classified failure of the request). */
export interface BodyProblem {
  /** Recorded as the request's errorCode (requests.csv error_code). */
  readonly code: string;
  readonly message: string;
}

export interface ApiReader {
  /** Applies one parsed stream event (a JSON object, not an error) that arrived at `atUs`. */
  applyStreamEvent(record: RequestRecord, event: Json, atUs: number): void;
  /** Applies a whole non-streaming body received at `atUs` (every token timestamp is that instant). */
  applyBody(record: RequestRecord, body: Json, atUs: number): void;
  /**
   * Checked after applyBody: a problem fails the request as `bad_chunk` with its code and message (an
   * embeddings answer with fewer embeddings than inputs). Absent: every parsed body is an answer.
   */
  bodyProblem?(record: RequestRecord, body: Json): BodyProblem | null;
  /** Where a token's text lies in this API's stream events; null: no templates (every event JSON.parsed). */
  readonly textSlot: TextSlotFinder | null;
  /**
   * The error an event reports in this API's own shape, which the handler's check (an `error` member, the
   * `event: error` line) does not see: Responses' `response.failed` holds it under `response`. Called on
   * every event before applyStreamEvent; an event it names fails the attempt as `stream_error`. Absent for
   * an API whose errors are all of the handler's shapes.
   */
  readonly streamError?: (event: Json) => ErrorDetails | null;
}
