/**
 * An embeddings server (POST /v1/embeddings, OpenAI's API as vLLM, TEI and infinity serve it) with KNOWN
 * latency and token counts, on 127.0.0.1 port 0: each request is answered `latencyMs` after it arrived,
 * `{ object: "list", data: [{ object: "embedding", embedding, index }], model, usage: { prompt_tokens,
 * total_tokens } }`, one embedding of `dimensions` numbers per input, prompt_tokens counted by o200k over
 * every input it received. `encoding_format: "base64"` gets each embedding as base64 little-endian float32s
 * (what the openai SDK asks for by default); "float" or none, a float array.
 *
 * It stamps on the process's performance clock (util/clock.ts nowUs, the client's clock in-process) when it
 * received and when it wrote each answer, per x-request-id.
 *
 * Models: `MODEL` answers; `SHORT_MODEL` answers one embedding fewer than the inputs (the count-mismatch
 * fault); `NO_USAGE_MODEL` answers without usage; any other model gets a 404 in OpenAI's error shape. A
 * body that is not an embeddings request (no string or string-array `input`) gets a 400.
 */
import type { ServerResponse } from 'node:http';
import { nowUs } from '../../src/util/clock.js';
import { o200kTokenizer } from '../../src/util/tokenizer.js';
import {
  startTestServer,
  type TestServer,
  sendJson,
  openAiError,
  parseJsonBody,
  answeredBesidesPath,
} from './fault-servers.js';

export const MODEL = 'embeddings-model';
export const SHORT_MODEL = 'embeddings-short';
export const NO_USAGE_MODEL = 'embeddings-no-usage';

export interface EmbeddingsServerOptions {
  /** Every answer this long after its request arrived. */
  readonly latencyMs: number;
  /** Numbers per embedding (default 8). */
  readonly dimensions?: number;
}

/** What the server did for one request. */
export interface ServedEmbedding {
  readonly body: Record<string, unknown>;
  /** The inputs received, in order (a string input is one). */
  readonly inputs: readonly string[];
  /** nowUs() when the request was handled (its body read). */
  readonly arrivedUs: number;
  /** nowUs() right after the answer was written; NaN until then. */
  writtenUs: number;
  /** o200k tokens of every input. */
  readonly promptTokens: number;
}

export interface EmbeddingsServer extends TestServer {
  /** By x-request-id (or `#<index>` when the request had none). */
  readonly served: Map<string, ServedEmbedding>;
}

function inputsOf(input: unknown): string[] | null {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string'))
    return input as string[];
  return null;
}

/** A deterministic embedding of input `index`: [index + 0.5, 0.25, -0.125, ...]. */
function vector(index: number, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, d) => (d === 0 ? index + 0.5 : (-1) ** d / 2 ** (d + 1)));
}

function base64Of(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeFloatLE(values[i] as number, i * 4);
  return bytes.toString('base64');
}

export async function startEmbeddingsServer(options: EmbeddingsServerOptions): Promise<EmbeddingsServer> {
  const served = new Map<string, ServedEmbedding>();
  const dimensions = options.dimensions ?? 8;
  const tokenizer = o200kTokenizer();
  const server = await startTestServer((request, res, index) => {
    const arrivedUs = nowUs();
    if (answeredBesidesPath(request, res, '/v1/embeddings', MODEL)) return;
    const body = parseJsonBody(request);
    const inputs = body === null ? null : inputsOf(body.input);
    if (body === null || inputs === null || body.messages !== undefined) {
      openAiError(res, 400, 'an embeddings request needs input: a string or strings', 'invalid_request_error');
      return;
    }
    if (body.model !== MODEL && body.model !== SHORT_MODEL && body.model !== NO_USAGE_MODEL) {
      openAiError(res, 404, `The model \`${String(body.model)}\` does not exist.`, 'NotFoundError');
      return;
    }
    const promptTokens = inputs.reduce((sum, input) => sum + tokenizer.count(input), 0);
    const record: ServedEmbedding = { body, inputs, arrivedUs, writtenUs: Number.NaN, promptTokens };
    const requestId = request.headers['x-request-id'];
    served.set(typeof requestId === 'string' ? requestId : `#${index}`, record);
    const answered = body.model === SHORT_MODEL ? inputs.length - 1 : inputs.length;
    const data = Array.from({ length: answered }, (_, i) => {
      const values = vector(i, dimensions);
      return {
        object: 'embedding',
        index: i,
        embedding: body.encoding_format === 'base64' ? base64Of(values) : values,
      };
    });
    const usage =
      body.model === NO_USAGE_MODEL ? {} : { usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
    const timers = (res as ServerResponse & { timers: Set<NodeJS.Timeout> }).timers;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (res.destroyed) return;
      sendJson(res, 200, { object: 'list', data, model: body.model, ...usage });
      record.writtenUs = nowUs();
    }, options.latencyMs);
    timers.add(timer);
  });
  return { ...server, served };
}

/** The float32 values of a base64 embedding (as the openai SDK decodes it). */
export function floatsOfBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

/** The embedding the server sends for input `index` (float32-exact values). */
export function expectedVector(index: number, dimensions = 8): number[] {
  return vector(index, dimensions);
}
