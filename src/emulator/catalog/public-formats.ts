/**
 * The catalog as the wire sees it: `/v1/models` objects, the public catalog in its three formats
 * (default, router, hub) field for field as the spec lists them, and the management listing.
 */
import type {
  CatalogFormat,
  HubModel,
  ManagedEndpoint,
  Model,
  PublicModel,
  RouterModel,
} from '../../protocol/models.js';
import type { EndpointSpec, ModelSpec } from '../model-spec.js';
import { CHAT_REQUEST_PARAMETERS } from '../../protocol/chat.js';

export const CATALOG_FORMATS: readonly CatalogFormat[] = ['default', 'router', 'hub'];

/** Sampling-related parameters, for the router format's `supported_sampling_parameters`. */
const SAMPLING_PARAMETERS = new Set([
  'temperature',
  'top_p',
  'frequency_penalty',
  'presence_penalty',
  'stop',
  'seed',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'max_completion_tokens',
]);

export function toModel(spec: ModelSpec): Model {
  return { id: spec.id, object: 'model', created: spec.created, owned_by: spec.ownedBy };
}

export function toPublicModel(spec: ModelSpec): PublicModel {
  const supported = new Set<string>(spec.supportedParameters);
  const supportedParameters: Record<string, boolean> = {};
  for (const name of CHAT_REQUEST_PARAMETERS) supportedParameters[name] = supported.has(name);
  for (const name of spec.supportedParameters) supportedParameters[name] = true;
  return {
    id: spec.id,
    object: 'model',
    created: spec.created,
    owned_by: spec.ownedBy,
    name: spec.name,
    description: spec.description,
    hub_model_id: spec.hubModelId,
    pricing: { prompt: spec.pricing.prompt, completion: spec.pricing.completion },
    capabilities: { ...spec.capabilities },
    supported_parameters: supportedParameters,
    architecture: {
      modality: spec.architecture.modality,
      tokenizer: spec.architecture.tokenizer,
      instruct_type: spec.architecture.instructType,
    },
    limits: {
      max_context_length: spec.limits.maxContextLength,
      max_completion_tokens: spec.limits.maxCompletionTokens,
      requests_per_minute: spec.limits.requestsPerMinute,
      tokens_per_minute: spec.limits.tokensPerMinute,
    },
    datacenter_locations: [...spec.datacenterLocations],
    deprecated: spec.deprecated,
    preview: spec.preview,
    quantization: spec.quantization,
  };
}

export function toRouterModel(spec: ModelSpec): RouterModel {
  const features = Object.entries(spec.capabilities)
    .filter(([name, on]) => on && name !== 'streaming')
    .map(([name]) => name);
  return {
    id: spec.id,
    hub_model_id: spec.hubModelId,
    name: spec.name,
    created: spec.created,
    input_modalities: spec.capabilities.vision ? ['text', 'image'] : ['text'],
    output_modalities: ['text'],
    quantization: spec.quantization,
    context_length: spec.limits.maxContextLength,
    max_output_length: spec.limits.maxCompletionTokens,
    pricing: {
      prompt: spec.pricing.prompt,
      completion: spec.pricing.completion,
      request: '0',
      image: '0',
      // Cached prompt tokens are billed at half price; writing the cache costs nothing extra.
      input_cache_read: formatUsd(Number(spec.pricing.prompt) / 2),
      input_cache_write: '0',
    },
    supported_sampling_parameters: spec.supportedParameters.filter((p) => SAMPLING_PARAMETERS.has(p)),
    supported_features: features,
  };
}

export function toHubModel(spec: ModelSpec): HubModel {
  return {
    id: spec.id,
    hub_model_id: spec.hubModelId,
    object: 'model',
    created: spec.created,
    owned_by: spec.ownedBy,
    context_length: spec.limits.maxContextLength,
    pricing: { input: perMillion(spec.pricing.prompt), output: perMillion(spec.pricing.completion) },
    capabilities: { ...spec.capabilities },
  };
}

/** Each public format's list shape: default `{object:"list",data}`, router and hub `{data}`. */
const FORMATTERS = {
  default: (models) => ({ object: 'list', data: models.map(toPublicModel) }),
  router: (models) => ({ data: models.map(toRouterModel) }),
  hub: (models) => ({ data: models.map(toHubModel) }),
} as const satisfies Record<CatalogFormat, (models: readonly ModelSpec[]) => unknown>;

/** The public list in a format. */
export function publicCatalog(models: readonly ModelSpec[], format: CatalogFormat): unknown {
  return FORMATTERS[format](models);
}

export function toManagedEndpoint(endpoint: EndpointSpec): ManagedEndpoint {
  return {
    endpoint_id: endpoint.endpointId,
    model_arch_id: endpoint.modelArchId,
    created: endpoint.created,
    updated: endpoint.updated,
    org_name: endpoint.orgName,
  };
}

/** USD per token (decimal string) -> USD per million tokens, without binary floating-point noise. */
function perMillion(usdPerToken: string): number {
  return Math.round(Number(usdPerToken) * 1e6 * 1e9) / 1e9;
}

/** A plain decimal string (never exponent notation) for a USD amount. */
function formatUsd(value: number): string {
  if (value === 0) return '0';
  return value.toFixed(15).replace(/0+$/, '').replace(/\.$/, '');
}
