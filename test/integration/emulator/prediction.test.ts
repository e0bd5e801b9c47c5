/**
 * `prediction` over real sockets follows the model's `supported_parameters` in the public catalog: every
 * model whose catalog entry says false refuses it with the 400 every model-dependent refusal has
 * (`invalid_request_error` / `wrong_api_format`, `param: "prediction"`), streamed or not; a model whose
 * entry says true (no built-in does: the spec offers it on request, so a `--config` model here) answers.
 * Regression: every model accepted it, whatever its catalog said.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogConfig } from '../../../src/emulator/catalog/config-file.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { chat, completionBody, errorBody, jsonBody, KEY, parseSse, request, USER, asChunk } from './support.js';

const PREDICTING = 'predicting-8b';
const CONFIG = `models:
  - id: ${PREDICTING}
    based_on: small-fast-8b
    supported_parameters: [max_completion_tokens, prediction, seed, stream, temperature]
`;
const PREDICTION = { type: 'content', content: 'The answer is forty-two.' };

interface PublicModel {
  id: string;
  deprecated: boolean;
  supported_parameters: Record<string, boolean>;
}

let dir: string;
let emulator: Emulator;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-prediction-'));
  writeFileSync(join(dir, 'catalog.yaml'), CONFIG);
  emulator = await createEmulator({ apiKeys: [KEY], catalog: loadCatalogConfig(join(dir, 'catalog.yaml')) });
});
afterAll(async () => {
  await emulator?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function publicModels(): Promise<PublicModel[]> {
  const res = await request(`${emulator.url}/public/v1/models`);
  expect(res.status).toBe(200);
  return jsonBody<{ data: PublicModel[] }>(res).data.filter((m) => !m.deprecated);
}

describe('prediction follows supported_parameters', () => {
  it('the catalog says false for every built-in model and true for the configured one', async () => {
    const models = await publicModels();
    const supporting = models.filter((m) => m.supported_parameters['prediction'] === true).map((m) => m.id);
    expect(supporting).toEqual([PREDICTING]);
    expect(models.length).toBeGreaterThan(3);
  });

  it('every model whose catalog entry says false refuses it with 400 naming prediction, streamed or not', async () => {
    const refusing = (await publicModels()).filter((m) => m.supported_parameters['prediction'] !== true);
    for (const { id } of refusing) {
      for (const stream of [false, true]) {
        const res = await chat(emulator.url, {
          model: id,
          messages: USER,
          max_completion_tokens: 8,
          prediction: PREDICTION,
          stream,
        });
        expect(res.status, `${id} stream ${stream}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(errorBody(res)).toEqual({
          message: `'prediction' is not supported by model '${id}' (see its supported_parameters in the public catalog).`,
          type: 'invalid_request_error',
          param: 'prediction',
          code: 'wrong_api_format',
        });
      }
    }
  });

  it('the same request without prediction is answered by those models (the refusal is the parameter, nothing else)', async () => {
    const res = await chat(emulator.url, { model: 'small-fast-8b', messages: USER, max_completion_tokens: 8 });
    expect(res.status).toBe(200);
    expect(completionBody(res).choices[0]?.message.content).toBeTruthy();
  });

  it('a model whose catalog entry says true answers it, as a string or as text parts, streamed or not', async () => {
    const whole = await chat(emulator.url, {
      model: PREDICTING,
      messages: USER,
      max_completion_tokens: 8,
      seed: 4,
      prediction: PREDICTION,
    });
    expect(whole.status, whole.text).toBe(200);
    const body = completionBody(whole);
    expect(body.model).toBe(PREDICTING);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);

    const streamed = await chat(emulator.url, {
      model: PREDICTING,
      messages: USER,
      max_completion_tokens: 8,
      stream: true,
      prediction: { type: 'content', content: [{ type: 'text', text: 'The answer' }] },
    });
    expect(streamed.status, streamed.text).toBe(200);
    const chunks = parseSse(streamed.text).map(asChunk);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toMatch(/^(stop|length)$/);
  });

  it('a malformed prediction is refused for its shape on either kind of model (the shape is checked first)', async () => {
    for (const model of [PREDICTING, 'small-fast-8b']) {
      const res = await chat(emulator.url, { model, messages: USER, prediction: { type: 'content' } });
      expect(res.status).toBe(400);
      expect(errorBody(res).param).toBe('prediction.content');
    }
  });
});
