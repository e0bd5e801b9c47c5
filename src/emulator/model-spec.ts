/**
 * One model (or dedicated endpoint) of the emulator's catalog, as the built-in catalog and the `--config`
 * YAML describe it. The public catalog formats, validation limits, generation behaviour and the capacity
 * model all read from this one record.
 */
import type { PublicModelCapabilities } from '../protocol/models.js';
import type { ReasoningEffort } from '../protocol/chat.js';

/** How a model behaves under load (issue: capacity model). Rates are per model instance. */
export interface CapacitySpec {
  /** Prompt processing speed, input tokens per second (per request). */
  readonly prefillTokensPerS: number;
  /** Generation speed per stream, tokens per second. */
  readonly decodeTokensPerS: number;
  /** Requests processed at once; more wait in the tier-ordered queue. */
  readonly slots: number;
  /** Minimum time to first token after leaving the queue, ms. */
  readonly ttftFloorMs: number;
  /** Relative jitter (0.1 = +-10%) applied to prefill and per-token times, seeded. */
  readonly jitter: number;
  /** Fraction of prompt time saved for cached prefix tokens (0..1). */
  readonly cacheSpeedup: number;
}

/** Fault injection rates (0..1 per request), all off by default. */
export interface FaultSpec {
  readonly http500: number;
  readonly http503: number;
  /** An error event inside the stream, after some tokens. */
  readonly streamError: number;
  /** Connection destroyed mid-stream. */
  readonly reset: number;
  /** Stall before sending headers for `stallMs`. */
  readonly stallBeforeHeaders: number;
  /** Stall between two tokens for `stallMs`. */
  readonly stallBetweenTokens: number;
  readonly stallMs: number;
}

export interface ReasoningSpec {
  /** Accepted reasoning_effort values. */
  readonly efforts: readonly ReasoningEffort[];
  readonly defaultEffort: ReasoningEffort;
  /** Reasoning tokens generated per effort (before max_completion_tokens caps them). */
  readonly tokensByEffort: Readonly<Partial<Record<ReasoningEffort, number>>>;
  /** Reasoning formats the model supports (`parsed`, `raw`, `hidden`). */
  readonly formats: readonly string[];
}

export interface ModelSpec {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly ownedBy: string;
  readonly created: number;
  readonly hubModelId: string;
  /** USD per token, as decimal strings (the catalog's wire format). */
  readonly pricing: { readonly prompt: string; readonly completion: string };
  readonly capabilities: PublicModelCapabilities;
  readonly supportedParameters: readonly string[];
  readonly architecture: { readonly modality: string; readonly tokenizer: string; readonly instructType: string };
  readonly limits: {
    readonly maxContextLength: number;
    readonly maxCompletionTokens: number;
    readonly requestsPerMinute: number | null;
    readonly tokensPerMinute: number | null;
  };
  readonly datacenterLocations: readonly string[];
  readonly deprecated: boolean;
  readonly preview: boolean;
  readonly quantization: string;
  /** null for models that do not reason. */
  readonly reasoning: ReasoningSpec | null;
  /** Typical answer length in tokens when max_completion_tokens does not cap it (seeded spread around it). */
  readonly typicalOutputTokens: number;
  readonly capacity: CapacitySpec;
  readonly faults: FaultSpec;
}

/** A dedicated endpoint: a private deployment of a model architecture, used as `model` by its id. */
export interface EndpointSpec {
  readonly endpointId: string;
  /** Id of the catalog model whose behaviour it has. */
  readonly modelArchId: string;
  readonly orgName: string;
  readonly created: number;
  readonly updated: number;
  /** Overrides of the architecture's capacity (a dedicated deployment has its own slots). */
  readonly capacity: CapacitySpec;
}
