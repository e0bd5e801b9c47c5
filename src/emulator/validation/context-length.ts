/**
 * The context-length limit: prompt tokens (counted exactly as usage reports them) plus the requested
 * `max_completion_tokens` must fit in the model's context. Without max_completion_tokens only the prompt
 * must fit; generation then stops (finish_reason `length`) where the context ends.
 */
import type { ChatCompletionRequest } from '../../protocol/chat.js';
import { ApiError } from '../api-error.js';
import { countPromptTokens } from '../generation/prompt-tokens.js';
import type { ModelSpec } from '../model-spec.js';

/** Throws 400 `context_length_exceeded` when the prompt plus the requested completion overflows the context. */
export function checkContextLength(request: ChatCompletionRequest, model: ModelSpec): void {
  const { promptTokens } = countPromptTokens(request);
  const completionTokens = request.max_completion_tokens ?? 0;
  const limit = model.limits.maxContextLength;
  if (promptTokens + completionTokens <= limit) return;
  const requested =
    completionTokens > 0
      ? `${promptTokens + completionTokens} tokens (${promptTokens} in the messages, ${completionTokens} in the completion)`
      : `${promptTokens} tokens in the messages`;
  throw new ApiError(
    400,
    'invalid_request_error',
    'context_length_exceeded',
    `This model's maximum context length is ${limit} tokens. However, you requested ${requested}. Please reduce the length of the messages or the completion.`,
    'messages',
  );
}
