/**
 * Prompt token accounting: how many input tokens a chat request costs, counted with the real tokenizer
 * the way OpenAI-style services count chat prompts. Validation (context length) and generation (usage)
 * both call this, so the limit that is checked is the number that is reported.
 */
import type { ChatCompletionRequest, ChatMessage } from '../../protocol/chat.js';
import { IMAGE_BASE_TOKENS, imageTokens } from '../../protocol/image-tokens.js';
import type { ImageDetail } from '../../protocol/image-tokens.js';
import { imageUrlDimensions } from './image-dimensions.js';
import { countTextTokens } from './token-pieces.js';

/** Fixed cost of every message (the role and the chat template's separators), as OpenAI counts it. */
export const TOKENS_PER_MESSAGE = 3;
/** Priming of the assistant's reply, added once per request. */
export const TOKENS_PER_REPLY = 3;
/**
 * Tokens of one image part, by its real size and detail (OpenAI's tile rule, protocol/image-tokens.ts).
 * Validation refused data that is not an image; a part it did not see counts the base tokens only. The
 * size is read once per part object (image-dimensions.ts), so validation and counting decode it once.
 */
export function imagePartTokens(imageUrl: { url?: unknown; detail?: unknown } | undefined): number {
  const dimensions = imageUrlDimensions(imageUrl);
  if (dimensions === null) return IMAGE_BASE_TOKENS;
  const detail = typeof imageUrl?.detail === 'string' ? (imageUrl.detail as ImageDetail) : null;
  return imageTokens(dimensions.width, dimensions.height, detail);
}

export interface PromptTokens {
  /** Every input token: messages, tool definitions, response schema and images. */
  readonly promptTokens: number;
  /** The part of promptTokens that images account for. */
  readonly imageTokens: number;
}

/**
 * Counted once per request object: the validator counts for the context-length check, then generation
 * reads the same count. Weak keys: entries go with the request, nothing accumulates.
 */
const countedRequests = new WeakMap<object, PromptTokens>();

function contentTokens(content: unknown, images: { tokens: number }): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content as { type?: unknown; text?: unknown; image_url?: { url?: unknown } }[]) {
    if (part.type === 'text' && typeof part.text === 'string') tokens += countTextTokens(part.text);
    else if (part.type === 'image_url') images.tokens += imagePartTokens(part.image_url);
  }
  return tokens;
}

function messageTokens(message: ChatMessage, images: { tokens: number }): number {
  let tokens = TOKENS_PER_MESSAGE + countTextTokens(message.role) + contentTokens(message.content, images);
  if ('name' in message && typeof message.name === 'string') tokens += 1 + countTextTokens(message.name);
  if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    tokens += countTextTokens(JSON.stringify(message.tool_calls));
  }
  if (message.role === 'tool' && typeof message.tool_call_id === 'string')
    tokens += countTextTokens(message.tool_call_id);
  return tokens;
}

/** Input tokens of a (validated) request. */
export function countPromptTokens(request: ChatCompletionRequest): PromptTokens {
  const cached = countedRequests.get(request);
  if (cached) return cached;
  const images = { tokens: 0 };
  let tokens = TOKENS_PER_REPLY;
  for (const message of request.messages) tokens += messageTokens(message, images);
  // Tool definitions and a response schema are injected into the prompt by the chat template.
  if (Array.isArray(request.tools) && request.tools.length > 0)
    tokens += countTextTokens(JSON.stringify(request.tools));
  const format = request.response_format;
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) {
    tokens += countTextTokens(JSON.stringify(format.json_schema.schema));
  }
  const counted: PromptTokens = { promptTokens: tokens + images.tokens, imageTokens: images.tokens };
  countedRequests.set(request, counted);
  return counted;
}
