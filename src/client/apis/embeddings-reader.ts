/**
 * Embeddings (POST /v1/embeddings): one JSON body, never a stream, `{ object: "list", data: [{ object:
 * "embedding", embedding, index }], model, usage: { prompt_tokens, total_tokens } }`. Nothing is generated,
 * so no token timestamp is set (no TTFT, ITL or TPOT: absent, never 0) and usage is stored in chat's shape
 * with completion_tokens NaN (no output tokens). An embedding is a float array (encoding_format "float",
 * what inferbench asks for) or a base64 string of little-endian float32s ("base64", the openai SDK's
 * default): both are read. The answer is ok when it holds one embedding per input sent (record.inputs);
 * otherwise bodyProblem names the count, and the request fails as bad_chunk with code `embeddings_count`.
 */
import { isObject, nonEmptyString, type Json } from '../json-shape.js';
import type { RequestRecord } from '../request-record.js';
import { applyResponseExtras } from '../response-facts.js';
import type { ApiReader, BodyProblem } from './api-reader.js';

/** An embedding as the API encodes it: a non-empty array of numbers, or a non-empty base64 string. */
function isEmbedding(value: unknown): boolean {
  if (nonEmptyString(value)) return true;
  return Array.isArray(value) && value.length > 0 && typeof value[0] === 'number';
}

function applyBody(record: RequestRecord, body: Json, atUs: number): void {
  record.firstChunkUs = atUs;
  applyResponseExtras(record, body);
  const usage = body['usage'];
  if (isObject(usage) && typeof usage['prompt_tokens'] === 'number') {
    const total = usage['total_tokens'];
    record.usage = {
      prompt_tokens: usage['prompt_tokens'],
      completion_tokens: Number.NaN,
      total_tokens: typeof total === 'number' ? total : usage['prompt_tokens'],
    };
  }
}

/** One embedding per input: the count the request sent (record.inputs; one when unknown). */
function bodyProblem(record: RequestRecord, body: Json): BodyProblem | null {
  const expected = Number.isNaN(record.inputs) ? 1 : record.inputs;
  const data = body['data'];
  if (!Array.isArray(data))
    return { code: 'embeddings_count', message: `embeddings answer without a data array (${expected} inputs sent)` };
  let embeddings = 0;
  for (const item of data) if (isObject(item) && isEmbedding(item['embedding'])) embeddings++;
  if (embeddings === expected && data.length === expected) return null;
  return {
    code: 'embeddings_count',
    message: `${embeddings} embeddings in ${data.length} data items for ${expected} inputs sent`,
  };
}

export const embeddingsReader: ApiReader = {
  // Not streamed: a server that streams anyway sends nothing this reader counts (the stream then ends truncated).
  applyStreamEvent: (record, event) => applyResponseExtras(record, event),
  applyBody,
  bodyProblem,
  textSlot: null,
};
