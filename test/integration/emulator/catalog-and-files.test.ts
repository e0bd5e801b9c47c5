/**
 * The public catalog in its three formats (every field of the spec and its type) and the file content
 * endpoint (content types, raw bytes, 404, no path traversal), over real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type { HubModel, PublicModel, RouterModel } from '../../../src/protocol/models.js';
import { errorBody, jsonBody, KEY, request } from './support.js';

/** The catalog bodies of GET /public/v1/models in its three formats. */
interface DefaultCatalog {
  object: 'list';
  data: PublicModel[];
}
interface RouterCatalog {
  data: RouterModel[];
}
interface HubCatalog {
  data: HubModel[];
}

let emulator: Emulator;
let dir: string;
const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-files-'));
  const files = join(dir, 'files');
  mkdirSync(files);
  writeFileSync(join(files, 'batch-1.jsonl'), '{"a":1}\n{"b":2}\n');
  writeFileSync(join(files, 'blob.bin'), binary);
  writeFileSync(join(files, 'noext'), 'plain');
  writeFileSync(join(dir, 'secret.txt'), 'outside the files directory');
  emulator = await createEmulator({ apiKeys: [KEY], filesDir: files });
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const type = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

function expectShape(object: object, shape: Record<string, string | string[]>): void {
  const fields = new Map<string, unknown>(Object.entries(object));
  expect(Object.keys(object).sort()).toEqual(Object.keys(shape).sort());
  for (const [key, expected] of Object.entries(shape)) {
    const allowed = Array.isArray(expected) ? expected : [expected];
    // An integer is also a number.
    const actual = type(fields.get(key));
    expect(allowed.includes(actual) || (actual === 'integer' && allowed.includes('number')), `${key}: ${actual}`).toBe(
      true,
    );
  }
}

const CAPABILITIES = [
  'streaming',
  'function_calling',
  'structured_outputs',
  'vision',
  'json_mode',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning',
];

function expectCapabilities(capabilities: object): void {
  expect(Object.keys(capabilities).sort()).toEqual([...CAPABILITIES].sort());
  for (const value of Object.values(capabilities)) expect(typeof value).toBe('boolean');
}

const isUsdString = (value: unknown): boolean => typeof value === 'string' && /^\d+(\.\d+)?$/.test(value);

describe('public catalog', () => {
  it('default format: {object:"list", data} with every field and type', async () => {
    const res = await request(`${emulator.url}/public/v1/models`);
    expect(res.status).toBe(200);
    const catalog = jsonBody<DefaultCatalog>(res);
    expect(Object.keys(catalog).sort()).toEqual(['data', 'object']);
    expect(catalog.object).toBe('list');
    expect(catalog.data.length).toBeGreaterThanOrEqual(5);
    for (const model of catalog.data) {
      expectShape(model, {
        id: 'string',
        object: 'string',
        created: 'integer',
        owned_by: 'string',
        name: 'string',
        description: 'string',
        hub_model_id: 'string',
        pricing: 'object',
        capabilities: 'object',
        supported_parameters: 'object',
        architecture: 'object',
        limits: 'object',
        datacenter_locations: 'array',
        deprecated: 'boolean',
        preview: 'boolean',
        quantization: 'string',
      });
      expect(model.object).toBe('model');
      expectShape(model.pricing, { prompt: 'string', completion: 'string' });
      expect(isUsdString(model.pricing.prompt) && isUsdString(model.pricing.completion)).toBe(true);
      expectCapabilities(model.capabilities);
      for (const value of Object.values(model.supported_parameters)) expect(typeof value).toBe('boolean');
      expect(model.supported_parameters.temperature).toBe(true);
      expectShape(model.architecture, { modality: 'string', tokenizer: 'string', instruct_type: 'string' });
      expectShape(model.limits, {
        max_context_length: 'integer',
        max_completion_tokens: 'integer',
        requests_per_minute: ['integer', 'null'],
        tokens_per_minute: ['integer', 'null'],
      });
    }
    const ids = catalog.data.map((m) => m.id);
    // The spec's two reasoning models, a vision model, unlimited limits on some.
    const reasoning = catalog.data.filter((m) => m.capabilities.reasoning);
    expect(reasoning).toHaveLength(2);
    for (const model of reasoning) expect(model.supported_parameters.reasoning_effort).toBe(true);
    expect(catalog.data.some((m) => m.capabilities.vision)).toBe(true);
    expect(catalog.data.some((m) => m.limits.requests_per_minute === null)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('router format: {data} with every field and type', async () => {
    const res = await request(`${emulator.url}/public/v1/models?format=router`);
    expect(res.status).toBe(200);
    const catalog = jsonBody<RouterCatalog>(res);
    expect(Object.keys(catalog)).toEqual(['data']);
    for (const model of catalog.data) {
      expectShape(model, {
        id: 'string',
        hub_model_id: 'string',
        name: 'string',
        created: 'integer',
        input_modalities: 'array',
        output_modalities: 'array',
        quantization: 'string',
        context_length: 'integer',
        max_output_length: 'integer',
        pricing: 'object',
        supported_sampling_parameters: 'array',
        supported_features: 'array',
      });
      expectShape(model.pricing, {
        prompt: 'string',
        completion: 'string',
        request: 'string',
        image: 'string',
        input_cache_read: 'string',
        input_cache_write: 'string',
      });
      for (const value of Object.values(model.pricing)) expect(isUsdString(value), String(value)).toBe(true);
      for (const list of [
        model.input_modalities,
        model.output_modalities,
        model.supported_sampling_parameters,
        model.supported_features,
      ]) {
        for (const item of list) expect(typeof item).toBe('string');
      }
      expect(model.input_modalities).toContain('text');
    }
    const vision = catalog.data.find((m) => m.id === 'vision-17b');
    expect(vision?.input_modalities).toEqual(['text', 'image']);
  });

  it('hub format: {data} with numeric pricing per million tokens', async () => {
    const res = await request(`${emulator.url}/public/v1/models?format=hub`);
    expect(res.status).toBe(200);
    const catalog = jsonBody<HubCatalog>(res);
    expect(Object.keys(catalog)).toEqual(['data']);
    for (const model of catalog.data) {
      expectShape(model, {
        id: 'string',
        hub_model_id: 'string',
        object: 'string',
        created: 'integer',
        owned_by: 'string',
        context_length: 'integer',
        pricing: 'object',
        capabilities: 'object',
      });
      expectShape(model.pricing, { input: 'number', output: 'number' });
      expectCapabilities(model.capabilities);
    }
    const large = catalog.data.find((m) => m.id === 'large-70b');
    // "0.00000085" USD per token = 0.85 USD per million tokens, exactly.
    expect(large?.pricing).toEqual({ input: 0.85, output: 1.2 });
  });

  it('a bad format is a 400 naming the parameter', async () => {
    const res = await request(`${emulator.url}/public/v1/models?format=xml`);
    expect(res.status).toBe(400);
    expect(errorBody(res).param).toBe('format');
  });

  it('one public model in the default format; unknown id 404', async () => {
    const res = await request(`${emulator.url}/public/v1/models/thinker-32b`);
    expect(res.status).toBe(200);
    const model = jsonBody<PublicModel>(res);
    expect(model.id).toBe('thinker-32b');
    expect(model.limits.max_context_length).toBe(65_536);
    const missing = await request(`${emulator.url}/public/v1/models/nope`);
    expect(missing.status).toBe(404);
    expect(errorBody(missing).code).toBe('model_not_found');
  });
});

describe('files', () => {
  const get = (id: string) =>
    request(`${emulator.url}/v1/files/${id}/content`, { headers: { authorization: `Bearer ${KEY}` } });

  it('a .jsonl file is application/x-ndjson with its content unchanged', async () => {
    const res = await get('batch-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.text).toBe('{"a":1}\n{"b":2}\n');
  });

  it('binary bytes come back unchanged as application/octet-stream', async () => {
    const res = await fetch(`${emulator.url}/v1/files/blob/content`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await res.arrayBuffer()).equals(binary)).toBe(true);
  });

  it('a file without extension is found by its whole name', async () => {
    const res = await get('noext');
    expect(res.status).toBe(200);
    expect(res.text).toBe('plain');
  });

  it('unknown id: 404 file_not_found', async () => {
    const res = await get('missing');
    expect(res.status).toBe(404);
    expect(errorBody(res).code).toBe('file_not_found');
  });

  it('path traversal is refused: nothing outside the directory is served', async () => {
    for (const id of ['..%2Fsecret', '%2E%2E%2Fsecret', '..', '.%2E', 'files%2F..%2Fsecret', '..%5Csecret']) {
      const res = await get(id);
      expect(res.status, id).toBe(404);
      expect(res.text).not.toContain('outside the files directory');
    }
    const dotted = await request(`${emulator.url}/v1/files/../secret/content`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(dotted.text).not.toContain('outside the files directory');
  });

  it('without --files every id is 404', async () => {
    const bare = await createEmulator({ apiKeys: [KEY] });
    try {
      const res = await request(`${bare.url}/v1/files/batch-1/content`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(res.status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
