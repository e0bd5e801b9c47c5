/** Wire types of the model listing, the public catalog (three formats) and the management listing. */

export interface Model {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export interface ModelList {
  object: 'list';
  data: Model[];
}

/** The boolean capabilities of a public model (the `capabilities` object of the default and hub formats). */
export const PUBLIC_MODEL_CAPABILITIES = [
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
] as const;

export type PublicModelCapability = (typeof PUBLIC_MODEL_CAPABILITIES)[number];

export type PublicModelCapabilities = Record<PublicModelCapability, boolean>;

export interface PublicModelLimits {
  max_context_length: number;
  max_completion_tokens: number;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
}

export interface PublicModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  name: string;
  description: string;
  hub_model_id: string;
  pricing: { prompt: string; completion: string };
  capabilities: PublicModelCapabilities;
  supported_parameters: Record<string, boolean>;
  architecture: { modality: string; tokenizer: string; instruct_type: string };
  limits: PublicModelLimits;
  datacenter_locations: string[];
  deprecated: boolean;
  preview: boolean;
  quantization: string;
}

export interface RouterModel {
  id: string;
  hub_model_id: string;
  name: string;
  created: number;
  input_modalities: string[];
  output_modalities: string[];
  quantization: string;
  context_length: number;
  max_output_length: number;
  pricing: {
    prompt: string;
    completion: string;
    request: string;
    image: string;
    input_cache_read: string;
    input_cache_write: string;
  };
  supported_sampling_parameters: string[];
  supported_features: string[];
}

export interface HubModel {
  id: string;
  hub_model_id: string;
  object: 'model';
  created: number;
  owned_by: string;
  context_length: number;
  pricing: { input: number; output: number };
  capabilities: PublicModelCapabilities;
}

export type CatalogFormat = 'default' | 'router' | 'hub';

export interface ManagedEndpoint {
  endpoint_id: string;
  model_arch_id: string;
  created: number;
  updated: number;
  org_name: string;
}
