/** PLACEHOLDER (the validation helper replaces this file): validates a chat completion request body. */
import type { ChatCompletionRequest } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';

export interface ValidationContext {
  readonly model: ModelSpec;
  /** True when `model` names a dedicated endpoint (the only place `priority` is allowed). */
  readonly dedicatedEndpoint: boolean;
}

/**
 * Returns the request typed, or throws ApiError (400) naming the first offending parameter.
 * Covers types, enums, ranges and limits, the version-2 rules, strict json_schema rules, model
 * capabilities (images, reasoning_effort values) and the context length.
 */
export function validateChatRequest(body: unknown, context: ValidationContext): ChatCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
  void context;
  return body as ChatCompletionRequest;
}
