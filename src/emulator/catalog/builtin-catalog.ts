/**
 * The emulator's built-in catalog: five models that exercise the whole spec (a small fast text model, a
 * large text model, the spec's two reasoning models, a vision model) and one dedicated endpoint. Numbers
 * are realistic for today's hosted inference (context lengths, USD-per-token prices, per-minute limits),
 * not copies of any vendor's price list. `--config` replaces or extends these (config-file.ts).
 */
import { CHAT_REQUEST_PARAMETERS } from '../../protocol/chat.js';
import type { PublicModelCapabilities } from '../../protocol/models.js';
import type { CapacitySpec, EndpointSpec, FaultSpec, ModelSpec } from '../model-spec.js';
import type { Catalog } from './catalog.js';

/** Faults off: the built-in models never fail on their own (tests turn faults on per request or in a config). */
export const NO_FAULTS: FaultSpec = {
  http500: 0,
  http503: 0,
  streamError: 0,
  reset: 0,
  stallBeforeHeaders: 0,
  stallBetweenTokens: 0,
  stallMs: 0,
};

/** 2026-01-01T00:00:00Z, so catalog output is stable across runs. */
const CREATED = 1_767_225_600;

const TEXT_PARAMETERS = CHAT_REQUEST_PARAMETERS.filter((p) => p !== 'reasoning_effort' && p !== 'prediction');
const REASONING_PARAMETERS = CHAT_REQUEST_PARAMETERS.filter((p) => p !== 'prediction');

function capabilities(overrides: Partial<PublicModelCapabilities>): PublicModelCapabilities {
  return {
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
    ...overrides,
  };
}

function capacity(overrides: Partial<CapacitySpec>): CapacitySpec {
  return {
    prefillTokensPerS: 20_000,
    decodeTokensPerS: 100,
    slots: 32,
    ttftFloorMs: 30,
    jitter: 0.1,
    cacheSpeedup: 0.8,
    ...overrides,
  };
}

const BASE = {
  ownedBy: 'emulator',
  created: CREATED,
  architecture: { modality: 'text->text', tokenizer: 'o200k_base', instructType: 'chat' },
  datacenterLocations: ['local-1'],
  deprecated: false,
  preview: false,
  faults: NO_FAULTS,
} as const;

/** The built-in models, in catalog order (the first is what a profile without `models` uses). */
export const BUILTIN_MODELS: readonly ModelSpec[] = [
  {
    ...BASE,
    id: 'small-fast-8b',
    name: 'Small Fast 8B',
    description: 'A small, fast text model for high-throughput chat and extraction.',
    hubModelId: 'emulator/small-fast-8b-instruct',
    pricing: { prompt: '0.0000001', completion: '0.0000001' },
    capabilities: capabilities({}),
    supportedParameters: TEXT_PARAMETERS,
    limits: { maxContextLength: 32_768, maxCompletionTokens: 8_192, requestsPerMinute: null, tokensPerMinute: null },
    quantization: 'fp16',
    reasoning: null,
    typicalOutputTokens: 128,
    capacity: capacity({ prefillTokensPerS: 40_000, decodeTokensPerS: 250, slots: 64, ttftFloorMs: 15 }),
  },
  {
    ...BASE,
    id: 'large-70b',
    name: 'Large 70B',
    description: 'A large general text model with a long context window.',
    hubModelId: 'emulator/large-70b-instruct',
    pricing: { prompt: '0.00000085', completion: '0.0000012' },
    capabilities: capabilities({}),
    supportedParameters: TEXT_PARAMETERS,
    limits: {
      maxContextLength: 131_072,
      maxCompletionTokens: 8_192,
      requestsPerMinute: 1_000,
      tokensPerMinute: 1_000_000,
    },
    quantization: 'fp8',
    reasoning: null,
    typicalOutputTokens: 256,
    capacity: capacity({ prefillTokensPerS: 12_000, decodeTokensPerS: 70, slots: 16, ttftFloorMs: 40 }),
  },
  {
    ...BASE,
    id: 'reasoner-120b',
    name: 'Reasoner 120B',
    description: 'An open-weight reasoning model; reasoning_effort low, medium (default) or high.',
    hubModelId: 'emulator/reasoner-120b',
    pricing: { prompt: '0.00000035', completion: '0.00000075' },
    capabilities: capabilities({ reasoning: true }),
    supportedParameters: REASONING_PARAMETERS,
    limits: {
      maxContextLength: 131_072,
      maxCompletionTokens: 65_536,
      requestsPerMinute: 600,
      tokensPerMinute: 600_000,
    },
    quantization: 'mxfp4',
    reasoning: {
      efforts: ['low', 'medium', 'high'],
      defaultEffort: 'medium',
      tokensByEffort: { low: 64, medium: 256, high: 1_024 },
      formats: ['parsed', 'raw', 'hidden'],
    },
    typicalOutputTokens: 192,
    capacity: capacity({ prefillTokensPerS: 15_000, decodeTokensPerS: 160, slots: 24, ttftFloorMs: 35 }),
  },
  {
    ...BASE,
    id: 'thinker-32b',
    name: 'Thinker 32B',
    description: 'A hybrid reasoning model; every reasoning_effort value (none by default) enables reasoning equally.',
    hubModelId: 'emulator/thinker-32b',
    pricing: { prompt: '0.0000004', completion: '0.0000008' },
    capabilities: capabilities({ reasoning: true }),
    supportedParameters: REASONING_PARAMETERS,
    limits: {
      maxContextLength: 65_536,
      maxCompletionTokens: 16_384,
      requestsPerMinute: null,
      tokensPerMinute: 400_000,
    },
    quantization: 'fp16',
    reasoning: {
      efforts: ['none', 'low', 'medium', 'high'],
      defaultEffort: 'none',
      tokensByEffort: { none: 320, low: 320, medium: 320, high: 320 },
      formats: ['parsed'],
    },
    typicalOutputTokens: 160,
    capacity: capacity({ prefillTokensPerS: 18_000, decodeTokensPerS: 130, slots: 32, ttftFloorMs: 30 }),
  },
  {
    ...BASE,
    id: 'vision-17b',
    name: 'Vision 17B',
    description: 'A multimodal model that reads images (data URLs) and text.',
    hubModelId: 'emulator/vision-17b-instruct',
    pricing: { prompt: '0.00000011', completion: '0.00000034' },
    capabilities: capabilities({ vision: true }),
    supportedParameters: TEXT_PARAMETERS,
    architecture: { modality: 'text+image->text', tokenizer: 'o200k_base', instructType: 'chat' },
    limits: { maxContextLength: 65_536, maxCompletionTokens: 8_192, requestsPerMinute: 300, tokensPerMinute: 300_000 },
    quantization: 'bf16',
    reasoning: null,
    typicalOutputTokens: 160,
    capacity: capacity({ prefillTokensPerS: 10_000, decodeTokensPerS: 100, slots: 16, ttftFloorMs: 60 }),
  },
];

/** The built-in dedicated endpoint(s), managed by `orgName` (the `--org` flag, default `local`). */
export function builtinEndpoints(orgName: string): EndpointSpec[] {
  return [
    {
      endpointId: 'ep-large-70b-dedicated',
      modelArchId: 'large-70b',
      orgName,
      created: CREATED,
      updated: CREATED,
      capacity: capacity({ prefillTokensPerS: 12_000, decodeTokensPerS: 80, slots: 48, ttftFloorMs: 40 }),
    },
  ];
}

/** The whole built-in catalog for an organization name. */
export function builtinCatalog(orgName = 'local'): Catalog {
  return { models: BUILTIN_MODELS, endpoints: builtinEndpoints(orgName) };
}
