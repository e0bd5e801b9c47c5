/**
 * Validation of `response_format`: the three forms (`text`, `json_schema`, `json_object`), the model
 * supporting them, strict-schema rules for `json_schema` with `strict: true`, and the two conditions of
 * `json_object` (rule 3: not with `stream: true`; a system or user message that asks for JSON).
 */
import type { ChatMessage, ResponseFormat } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import { describeValue, isSet, requireBoolean, requireObject, requireString } from './field-checks.js';
import { checkStrictSchema } from './strict-schema.js';

/** OpenAI's rule for schema names (the spec is silent on it). */
const SCHEMA_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

function mentionsJson(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (message) =>
      (message.role === 'system' || message.role === 'user' || message.role === 'developer') &&
      /json/i.test(messageText(message)),
  );
}

/**
 * Checks `response_format` (may be absent) against the model, the messages and `stream`; returns it
 * typed, with `strict` defaulted to false for json_schema.
 */
export function validateResponseFormat(
  value: unknown,
  model: ModelSpec,
  messages: readonly ChatMessage[],
  stream: boolean,
): ResponseFormat | undefined {
  if (!isSet(value)) return undefined;
  const format = requireObject(value, 'response_format');
  switch (format['type']) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      if (!model.capabilities.json_mode) {
        throw badRequest(`Model '${model.id}' does not support the 'json_object' response format.`, 'response_format');
      }
      if (stream) {
        throw badRequest(
          "'response_format' of type 'json_object' cannot be used with 'stream': true.",
          'response_format',
        );
      }
      if (!mentionsJson(messages)) {
        throw badRequest(
          "'response_format' of type 'json_object' requires a system or user message that asks for JSON (the word 'json' must appear in one).",
          'messages',
        );
      }
      return { type: 'json_object' };
    case 'json_schema': {
      if (!model.capabilities.structured_outputs) {
        throw badRequest(
          `Model '${model.id}' does not support the 'json_schema' response format (structured outputs).`,
          'response_format',
        );
      }
      const spec = requireObject(format['json_schema'], 'response_format.json_schema');
      const name = requireString(spec['name'], 'response_format.json_schema.name');
      if (!SCHEMA_NAME_PATTERN.test(name)) {
        throw badRequest(
          `'response_format.json_schema.name' must be 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-', got ${describeValue(name)}.`,
          'response_format.json_schema.name',
        );
      }
      if (isSet(spec['description'])) requireString(spec['description'], 'response_format.json_schema.description');
      const strict = isSet(spec['strict'])
        ? requireBoolean(spec['strict'], 'response_format.json_schema.strict')
        : false;
      let schema: Record<string, unknown> | undefined;
      if (isSet(spec['schema'])) {
        schema = requireObject(spec['schema'], 'response_format.json_schema.schema');
        if (strict) checkStrictSchema(schema, 'response_format.json_schema.schema', `response_format '${name}'`);
      }
      return { type: 'json_schema', json_schema: { ...spec, name, strict, ...(schema ? { schema } : {}) } };
    }
    default:
      throw badRequest(
        `'response_format.type' must be 'text', 'json_schema' or 'json_object', got ${describeValue(format['type'])}.`,
        'response_format.type',
      );
  }
}
