/**
 * The chat completion request validator: turns a decoded body into a typed ChatCompletionRequest or
 * throws ApiError 400 naming the first offending parameter. Order: body shape, unknown fields, model and
 * messages, the plain fields, tools and tool_choice, response_format, reasoning, the version-2
 * conversation rules, and last the context length (it needs a valid request to count).
 */
import { CHAT_REQUEST_PARAMETERS, type ChatCompletionRequest } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import { checkContextLength } from './context-length.js';
import { isObject, isSet, requireString } from './field-checks.js';
import { checkToolCallSequence } from './tool-call-sequence.js';
import { validateMessages } from './validate-messages.js';
import { validateReasoningEffort, validateReasoningFormat } from './validate-reasoning.js';
import { validateResponseFormat } from './validate-response-format.js';
import { validateScalarFields } from './validate-scalar-fields.js';
import { validateToolChoice, validateTools } from './validate-tools.js';

export interface ValidationContext {
  readonly model: ModelSpec;
  /** True when `model` names a dedicated endpoint (the only place `priority` is allowed). */
  readonly dedicatedEndpoint: boolean;
}

/** The spec's request table. */
const SPEC_FIELDS = ['model', 'messages', ...CHAT_REQUEST_PARAMETERS];
/** Fields outside the table that real clients send and the real service accepts. */
const ACCEPTED_EXTRAS = ['stream_options', 'n', 'max_tokens', 'reasoning_format', 'metadata', 'store'];
const KNOWN_FIELDS = new Set([...SPEC_FIELDS, ...ACCEPTED_EXTRAS]);

/**
 * Returns the request typed, or throws ApiError (400) naming the first offending parameter.
 * Covers types, enums, ranges and limits, the version-2 rules, strict json_schema rules, model
 * capabilities (images, tools, reasoning_effort values) and the context length. The returned object is
 * a shallow copy with `max_tokens` folded into `max_completion_tokens`; the body is not modified.
 */
export function validateChatRequest(body: unknown, context: ValidationContext): ChatCompletionRequest {
  if (!isObject(body)) throw badRequest('The request body must be a JSON object.');
  const { model } = context;
  for (const field of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(field)) throw badRequest(`Unknown parameter '${field}'.`, field);
  }
  if (!isSet(body['model'])) throw badRequest("'model' is required.", 'model');
  requireString(body['model'], 'model');
  if (!isSet(body['messages'])) throw badRequest("'messages' is required.", 'messages');
  const messages = validateMessages(body['messages'], model);
  const maxCompletionTokens = validateScalarFields(body, context);
  const tools = validateTools(body['tools'], model);
  const toolChoice = validateToolChoice(body['tool_choice'], tools);
  const responseFormat = validateResponseFormat(body['response_format'], model, messages, body['stream'] === true);
  const reasoningEffort = validateReasoningEffort(body['reasoning_effort'], model);
  const reasoningFormat = validateReasoningFormat(body['reasoning_format'], model);
  checkToolCallSequence(messages);

  const request = { ...body } as unknown as ChatCompletionRequest;
  delete request.max_tokens;
  if (maxCompletionTokens !== undefined) request.max_completion_tokens = maxCompletionTokens;
  if (toolChoice !== undefined) request.tool_choice = toolChoice;
  else delete request.tool_choice;
  if (responseFormat !== undefined) request.response_format = responseFormat;
  if (reasoningEffort !== undefined) request.reasoning_effort = reasoningEffort;
  if (reasoningFormat !== undefined) request.reasoning_format = reasoningFormat;
  checkContextLength(request, model);
  return request;
}
