/**
 * A completion decided in full before the first byte goes out: generation (pure, seeded) produces it,
 * the response writer streams or serialises it as the engine releases tokens. One token = one entry of
 * `tokens`, so usage, stream chunks and logprobs all agree by construction.
 */
import type { FinishReason, ToolCall } from '../protocol/chat.js';

export interface PlannedToken {
  /** reasoning -> delta.reasoning; content -> delta.content; tool -> delta.tool_calls[toolIndex].function.arguments */
  readonly kind: 'reasoning' | 'content' | 'tool';
  /**
   * The token's text. Empty for reasoning hidden by `reasoning_format: hidden`: such tokens are paced and
   * counted (usage, reasoning_tokens) but never sent.
   */
  readonly text: string;
  /** Which tool call the token belongs to (kind `tool` only), index into `toolCalls`. */
  readonly toolIndex: number;
  readonly logprob: number;
  /** Alternatives for top_logprobs (empty unless asked for). */
  readonly top: readonly { readonly token: string; readonly logprob: number }[];
}

export interface CompletionPlan {
  /** In emission order: all reasoning tokens first, then content or tool-call arguments. */
  readonly tokens: readonly PlannedToken[];
  readonly reasoningTokens: number;
  /** Final answer text (null when the model calls tools). */
  readonly content: string | null;
  /** Reasoning text (reasoning models only, else null). */
  readonly reasoning: string | null;
  /** Tool calls with their complete arguments (null when none). */
  readonly toolCalls: readonly ToolCall[] | null;
  readonly finishReason: FinishReason;
  /** Prompt tokens as the tokenizer counts the request (messages, tools, images). */
  readonly promptTokens: number;
  readonly imageTokens: number;
  /** Whether per-token logprobs are returned (and top_logprobs count). */
  readonly logprobs: boolean;
  readonly topLogprobs: number;
}
