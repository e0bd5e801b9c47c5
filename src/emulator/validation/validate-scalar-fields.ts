/**
 * Validation of the request table's plain fields: sampling numbers and their ranges (Limits table),
 * logit_bias, logprobs/top_logprobs (rule 2), max_completion_tokens and its deprecated alias max_tokens,
 * stop, seed, service_tier, prompt_cache_key, prediction, user, and the accepted extras (n,
 * stream_options, metadata, store). Returns the effective max_completion_tokens.
 */
import { SERVICE_TIERS } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import {
  describeValue,
  isSet,
  requireBoolean,
  requireEnum,
  requireIntegerInRange,
  requireNumberInRange,
  requireObject,
  requireString,
  type JsonObject,
} from './field-checks.js';

/** Ids of the o200k_base vocabulary, special tokens included, are 0 .. 200018. */
const VOCABULARY_SIZE = 200_019;
const MAX_STOP_SEQUENCES = 4;
const MAX_PROMPT_CACHE_KEY_LENGTH = 1024;
const MAX_TOP_LOGPROBS = 20;

/** What the plain-field checks need to know beyond the body. */
export interface ScalarContext {
  readonly model: ModelSpec;
  readonly dedicatedEndpoint: boolean;
}

function checkLogitBias(value: unknown): void {
  const bias = requireObject(value, 'logit_bias');
  for (const [key, weight] of Object.entries(bias)) {
    if (!/^(0|[1-9][0-9]{0,8})$/.test(key) || Number(key) >= VOCABULARY_SIZE) {
      throw badRequest(
        `'logit_bias' keys must be token ids (integers from 0 to ${VOCABULARY_SIZE - 1} as strings), got ${describeValue(key)}.`,
        'logit_bias',
      );
    }
    requireNumberInRange(weight, `logit_bias.${key}`, -100, 100);
  }
}

function checkStop(value: unknown): void {
  if (typeof value === 'string') {
    if (value.length === 0) throw badRequest("'stop' must not be an empty string.", 'stop');
    return;
  }
  if (!Array.isArray(value))
    throw badRequest(`'stop' must be a string or an array of strings, got ${describeValue(value)}.`, 'stop');
  if (value.length > MAX_STOP_SEQUENCES) {
    throw badRequest(`'stop' accepts up to ${MAX_STOP_SEQUENCES} sequences, got ${value.length}.`, 'stop');
  }
  value.forEach((sequence, i) => {
    requireString(sequence, `stop[${i}]`);
    if (sequence.length === 0) throw badRequest(`'stop[${i}]' must not be an empty string.`, `stop[${i}]`);
  });
}

/**
 * `prediction`: its shape, then the model. The spec offers it only where enabled (dedicated endpoints on
 * request, one public-preview model), so a model whose `supported_parameters` (the public catalog's)
 * leave it out refuses it, as a model that does not reason refuses `reasoning_effort`.
 */
function checkPrediction(value: unknown, model: ModelSpec): void {
  const prediction = requireObject(value, 'prediction');
  if (prediction['type'] !== 'content') {
    throw badRequest(
      `'prediction.type' must be 'content', got ${describeValue(prediction['type'])}.`,
      'prediction.type',
    );
  }
  const content = prediction['content'];
  if (typeof content !== 'string') checkPredictionParts(content);
  if (!model.supportedParameters.includes('prediction')) {
    throw badRequest(
      `'prediction' is not supported by model '${model.id}' (see its supported_parameters in the public catalog).`,
      'prediction',
    );
  }
}

function checkPredictionParts(content: unknown): void {
  if (!Array.isArray(content)) {
    throw badRequest(
      `'prediction.content' must be a string or an array of text parts, got ${describeValue(content)}.`,
      'prediction.content',
    );
  }
  content.forEach((part, i) => {
    const object = requireObject(part, `prediction.content[${i}]`);
    if (object['type'] !== 'text') {
      throw badRequest(
        `'prediction.content[${i}].type' must be 'text', got ${describeValue(object['type'])}.`,
        `prediction.content[${i}].type`,
      );
    }
    requireString(object['text'], `prediction.content[${i}].text`);
  });
}

function checkMaxTokens(body: JsonObject, model: ModelSpec): number | undefined {
  const limit = model.limits.maxCompletionTokens;
  const modern = isSet(body['max_completion_tokens'])
    ? requireIntegerInRange(body['max_completion_tokens'], 'max_completion_tokens', 1, limit)
    : undefined;
  const legacy = isSet(body['max_tokens'])
    ? requireIntegerInRange(body['max_tokens'], 'max_tokens', 1, limit)
    : undefined;
  if (modern !== undefined && legacy !== undefined && modern !== legacy) {
    throw badRequest(
      "'max_tokens' is a deprecated alias of 'max_completion_tokens'; send only one of them.",
      'max_tokens',
    );
  }
  return modern ?? legacy;
}

function checkMetadata(value: unknown): void {
  const metadata = requireObject(value, 'metadata');
  for (const [key, entry] of Object.entries(metadata)) requireString(entry, `metadata.${key}`);
}

/** Validates the plain fields of `body`; returns the effective max_completion_tokens (alias folded in). */
export function validateScalarFields(body: JsonObject, context: ScalarContext): number | undefined {
  const { model } = context;
  if (isSet(body['frequency_penalty'])) requireNumberInRange(body['frequency_penalty'], 'frequency_penalty', -2, 2);
  if (isSet(body['logit_bias'])) checkLogitBias(body['logit_bias']);
  const logprobs = isSet(body['logprobs']) ? requireBoolean(body['logprobs'], 'logprobs') : false;
  const maxCompletionTokens = checkMaxTokens(body, model);
  if (isSet(body['parallel_tool_calls'])) requireBoolean(body['parallel_tool_calls'], 'parallel_tool_calls');
  if (isSet(body['prediction'])) checkPrediction(body['prediction'], model);
  if (isSet(body['presence_penalty'])) requireNumberInRange(body['presence_penalty'], 'presence_penalty', -2, 2);
  if (isSet(body['prompt_cache_key'])) {
    const key = requireString(body['prompt_cache_key'], 'prompt_cache_key');
    if (key.length > MAX_PROMPT_CACHE_KEY_LENGTH) {
      throw badRequest(
        `'prompt_cache_key' must be at most ${MAX_PROMPT_CACHE_KEY_LENGTH} characters, got ${key.length}.`,
        'prompt_cache_key',
      );
    }
  }
  if (isSet(body['seed']))
    requireIntegerInRange(body['seed'], 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (isSet(body['service_tier'])) {
    const tier = requireEnum(body['service_tier'], 'service_tier', SERVICE_TIERS);
    if (tier === 'priority' && !context.dedicatedEndpoint) {
      throw badRequest("'service_tier' 'priority' is only available on dedicated endpoints.", 'service_tier');
    }
  }
  if (isSet(body['stop'])) checkStop(body['stop']);
  if (isSet(body['stream'])) requireBoolean(body['stream'], 'stream');
  if (isSet(body['temperature'])) requireNumberInRange(body['temperature'], 'temperature', 0, 2);
  if (isSet(body['top_logprobs'])) {
    requireIntegerInRange(body['top_logprobs'], 'top_logprobs', 0, MAX_TOP_LOGPROBS);
    if (!logprobs) throw badRequest("'top_logprobs' can only be used when 'logprobs' is true.", 'top_logprobs');
  }
  if (isSet(body['top_p'])) requireNumberInRange(body['top_p'], 'top_p', 0, 1);
  if (isSet(body['user'])) requireString(body['user'], 'user');
  if (isSet(body['n'])) {
    const n = requireIntegerInRange(body['n'], 'n', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (n !== 1) throw badRequest(`'n' must be 1: only one choice per request is supported, got ${n}.`, 'n');
  }
  if (isSet(body['stream_options'])) {
    const options = requireObject(body['stream_options'], 'stream_options');
    if (isSet(options['include_usage'])) requireBoolean(options['include_usage'], 'stream_options.include_usage');
  }
  if (isSet(body['metadata'])) checkMetadata(body['metadata']);
  if (isSet(body['store'])) requireBoolean(body['store'], 'store');
  return maxCompletionTokens;
}
