/**
 * The purpose-built embeddings server (test/helpers/embeddings-server.ts) speaks what the official `openai`
 * SDK (a client nobody here wrote) parses: `client.embeddings.create` asks for base64 by default and
 * decodes it to float arrays, or takes floats; usage; errors the SDK raises as APIError. inferbench's
 * reader is then held to the same answers.
 */
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import {
  type EmbeddingsServer,
  expectedVector,
  MODEL,
  SHORT_MODEL,
  startEmbeddingsServer,
} from '../../helpers/embeddings-server.js';

let server: EmbeddingsServer;
let client: OpenAI;
const INPUTS = ['The quick brown fox', 'jumps over the lazy dog', 'a third input', 'and a fourth one'];

beforeAll(async () => {
  server = await startEmbeddingsServer({ latencyMs: 5, dimensions: 8 });
  client = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 10_000 });
});
afterAll(() => server.close());

const tokens = (texts: readonly string[]): number => texts.reduce((sum, t) => sum + o200kTokenizer().count(t), 0);

describe('openai SDK against the embeddings server', () => {
  it('decodes the base64 embeddings it asks for by default, one per input, with usage', async () => {
    const answer = await client.embeddings.create({ model: MODEL, input: INPUTS });
    const sent = [...server.served.values()].at(-1);
    // The SDK's default: base64 on the wire, float arrays for its caller.
    expect(sent?.body.encoding_format).toBe('base64');
    expect(answer.object).toBe('list');
    expect(answer.data.map((item) => item.index)).toEqual([0, 1, 2, 3]);
    expect(answer.data.map((item) => item.embedding)).toEqual([0, 1, 2, 3].map((i) => expectedVector(i)));
    expect(answer.usage).toEqual({ prompt_tokens: tokens(INPUTS), total_tokens: tokens(INPUTS) });
  });

  it('takes float arrays when asked for encoding_format float, and one string input', async () => {
    const answer = await client.embeddings.create({ model: MODEL, input: INPUTS[0]!, encoding_format: 'float' });
    expect(answer.data).toHaveLength(1);
    expect(answer.data[0]?.embedding).toEqual(expectedVector(0));
    expect(answer.usage.prompt_tokens).toBe(tokens([INPUTS[0]!]));
  });

  it('answers one embedding fewer for the count-mismatch model, and a 404 for an unknown model', async () => {
    const short = await client.embeddings.create({ model: SHORT_MODEL, input: INPUTS, encoding_format: 'float' });
    expect(short.data).toHaveLength(INPUTS.length - 1);
    await expect(client.embeddings.create({ model: 'nope', input: INPUTS })).rejects.toSatisfy(
      (error) => error instanceof APIError && error.status === 404,
    );
  });
});
