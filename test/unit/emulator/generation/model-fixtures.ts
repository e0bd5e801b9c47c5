/**
 * ModelSpec fixtures for the validation and generation unit tests: a text model, a vision model and the
 * spec's two reasoning models, with small limits so boundaries are cheap to reach.
 */
import type { ModelSpec } from '../../../../src/emulator/model-spec.js';

const capabilities = {
  streaming: true,
  function_calling: true,
  structured_outputs: true,
  vision: false,
  json_mode: true,
  tools: true,
  tool_choice: true,
  parallel_tool_calls: true,
  response_format: true,
  reasoning: false,
};

export const textModel: ModelSpec = {
  id: 'test-text',
  name: 'Test text',
  description: 'A text model for tests',
  ownedBy: 'tests',
  created: 1_760_000_000,
  hubModelId: 'tests/text',
  pricing: { prompt: '0.0000001', completion: '0.0000002' },
  capabilities,
  supportedParameters: [],
  architecture: { modality: 'text->text', tokenizer: 'o200k_base', instructType: 'chat' },
  limits: { maxContextLength: 8192, maxCompletionTokens: 4096, requestsPerMinute: null, tokensPerMinute: null },
  datacenterLocations: ['local'],
  deprecated: false,
  preview: false,
  quantization: 'fp16',
  reasoning: null,
  typicalOutputTokens: 120,
  capacity: {
    prefillTokensPerS: 10_000,
    decodeTokensPerS: 100,
    slots: 8,
    ttftFloorMs: 10,
    jitter: 0,
    cacheSpeedup: 0.5,
  },
  faults: {
    http500: 0,
    http503: 0,
    streamError: 0,
    reset: 0,
    stallBeforeHeaders: 0,
    stallBetweenTokens: 0,
    stallMs: 0,
  },
};

export const visionModel: ModelSpec = {
  ...textModel,
  id: 'test-vision',
  capabilities: { ...capabilities, vision: true },
};

/** The spec's first reasoning model: low, medium (default), high; every reasoning format. */
export const reasoningModel: ModelSpec = {
  ...textModel,
  id: 'test-reasoner',
  capabilities: { ...capabilities, reasoning: true },
  reasoning: {
    efforts: ['low', 'medium', 'high'],
    defaultEffort: 'medium',
    tokensByEffort: { low: 40, medium: 120, high: 400 },
    formats: ['parsed', 'raw', 'hidden'],
  },
};

/** The spec's second reasoning model: none (default), low, medium, high; no raw or hidden format. */
export const effortNoneModel: ModelSpec = {
  ...textModel,
  id: 'test-reasoner-none',
  capabilities: { ...capabilities, reasoning: true },
  reasoning: {
    efforts: ['none', 'low', 'medium', 'high'],
    defaultEffort: 'none',
    tokensByEffort: { none: 80, low: 80, medium: 80, high: 80 },
    formats: ['parsed'],
  },
};

/** A model with a tiny context window, for the context-length rule. */
export const smallContextModel: ModelSpec = {
  ...textModel,
  id: 'test-small-context',
  limits: { ...textModel.limits, maxContextLength: 100, maxCompletionTokens: 64 },
};
