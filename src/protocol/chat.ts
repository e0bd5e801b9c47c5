/**
 * Wire types of POST /v1/chat/completions: request, response and stream chunk, field for field as the
 * API spec's tables give them. Types only: validation lives with whoever receives the data (the
 * emulator validates requests, the client tolerates any server's chunks).
 */

import type { ImageDetail } from './image-tokens.js';

export type ServiceTier = 'priority' | 'default' | 'auto' | 'flex';
export const SERVICE_TIERS: readonly ServiceTier[] = ['priority', 'default', 'auto', 'flex'];
/** The tier a request actually ran in (`auto` resolves to one of these). */
export type ServiceTierUsed = Exclude<ServiceTier, 'auto'>;

export type ReasoningEffort = 'low' | 'medium' | 'high' | 'none';
/** The spec's `reasoning_effort` values (which a model accepts depends on the model). */
export const REASONING_EFFORTS = ['low', 'medium', 'high', 'none'] as const satisfies readonly ReasoningEffort[];
/** How reasoning is returned: `parsed` in message.reasoning, `raw` inside content as <think>...</think>, `hidden` not at all. */
export type ReasoningFormat = 'parsed' | 'raw' | 'hidden';
export const REASONING_FORMATS: readonly ReasoningFormat[] = ['parsed', 'raw', 'hidden'];
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  /** `detail` is OpenAI's (auto, low, high); the spec lists only `url`, so the harness sends it only when asked. */
  image_url: { url: string; detail?: ImageDetail | null };
}
export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | ContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | TextPart[] | null;
      tool_calls?: ToolCall[] | null;
      reasoning?: string;
      name?: string;
    }
  | { role: 'tool'; content: string | TextPart[]; tool_call_id: string };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

/** The optional parameters of the spec's request table (everything but `model` and `messages`), in its order. */
export const CHAT_REQUEST_PARAMETERS = [
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'reasoning_effort',
  'response_format',
  'seed',
  'service_tier',
  'stop',
  'stream',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
] as const;
export type ChatRequestParameter = (typeof CHAT_REQUEST_PARAMETERS)[number];

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  frequency_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean | null;
  max_completion_tokens?: number | null;
  parallel_tool_calls?: boolean | null;
  prediction?: { type: 'content'; content: string | TextPart[] } | null;
  presence_penalty?: number | null;
  prompt_cache_key?: string | null;
  reasoning_effort?: ReasoningEffort | null;
  response_format?: ResponseFormat | null;
  seed?: number | null;
  service_tier?: ServiceTier | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  temperature?: number | null;
  tool_choice?: ToolChoice;
  tools?: ToolDefinition[] | null;
  top_logprobs?: number | null;
  top_p?: number | null;
  user?: string | null;
  /** Accepted extras that real clients send (not in the spec's table). */
  reasoning_format?: ReasoningFormat | null;
  stream_options?: { include_usage?: boolean | null } | null;
  /** Choices wanted; only 1 is supported. */
  n?: number | null;
  /** Deprecated alias of max_completion_tokens (the emulator's validation folds it in). */
  max_tokens?: number | null;
  metadata?: Record<string, string> | null;
  store?: boolean | null;
}

export interface LogprobEntry {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[];
}
export interface Logprobs {
  content: LogprobEntry[] | null;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  image_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** Server-side timing, in seconds (created: Unix seconds with fraction). */
export interface TimeInfo {
  queue_time: number;
  prompt_time: number;
  completion_time: number;
  total_time: number;
  created: number;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls: ToolCall[] | null;
  reasoning?: string;
}

export interface ChatCompletionChoice {
  index: number;
  finish_reason: FinishReason;
  message: AssistantMessage;
  logprobs: Logprobs | null;
  reasoning_logprobs?: Logprobs | null;
}

export interface ChatCompletionResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  service_tier_used?: ServiceTierUsed;
  choices: ChatCompletionChoice[];
  usage: Usage;
  time_info: TimeInfo;
}

/** A tool-call fragment inside a stream delta; `index` says which call it extends. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDelta[];
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChunkDelta;
  finish_reason: FinishReason | null;
  logprobs?: Logprobs | null;
  reasoning_logprobs?: Logprobs | null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint: string;
  service_tier_used?: ServiceTierUsed;
  choices: ChatCompletionChunkChoice[];
  usage?: Usage | null;
  time_info?: TimeInfo | null;
}
