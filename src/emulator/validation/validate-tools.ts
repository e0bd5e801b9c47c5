/**
 * Validation of `tools`, `tool_choice` and `parallel_tool_calls`: function definitions (name of at most
 * 64 characters from `a-zA-Z0-9_-`, parameters an object schema, strict-schema rules when
 * `function.strict` is true), the tool_choice forms, the named function existing among the tools, and
 * version-2 rule 3 (tool_choice needs tools).
 */
import type { ToolChoice, ToolDefinition } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import { describeValue, isSet, requireBoolean, requireObject, requireString } from './field-checks.js';
import { checkStrictSchema } from './strict-schema.js';

/** The Limits table: at most 64 characters from a-z, A-Z, 0-9, underscore and dash. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function validateTool(tool: unknown, param: string): ToolDefinition {
  const object = requireObject(tool, param);
  if (object['type'] !== 'function') {
    throw badRequest(
      `'${param}.type' must be 'function' (only functions are supported), got ${describeValue(object['type'])}.`,
      `${param}.type`,
    );
  }
  const fn = requireObject(object['function'], `${param}.function`);
  const name = requireString(fn['name'], `${param}.function.name`);
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw badRequest(
      `'${param}.function.name' must be 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-', got ${describeValue(name)}.`,
      `${param}.function.name`,
    );
  }
  if (isSet(fn['description'])) requireString(fn['description'], `${param}.function.description`);
  const strict = isSet(fn['strict']) ? requireBoolean(fn['strict'], `${param}.function.strict`) : false;
  if (isSet(fn['parameters'])) {
    const parameters = requireObject(fn['parameters'], `${param}.function.parameters`);
    const type = parameters['type'];
    if (type !== undefined && type !== 'object') {
      throw badRequest(
        `'${param}.function.parameters' must be a JSON Schema of type 'object', got type ${describeValue(type)}.`,
        `${param}.function.parameters`,
      );
    }
    if (strict) checkStrictSchema(parameters, `${param}.function.parameters`, `tool '${name}'`);
  }
  return object as unknown as ToolDefinition;
}

/** Checks `tools` (may be absent); returns the definitions, empty when there are none. */
export function validateTools(tools: unknown, model: ModelSpec): ToolDefinition[] {
  if (!isSet(tools)) return [];
  if (!Array.isArray(tools))
    throw badRequest(`'tools' must be an array of tool definitions, got ${describeValue(tools)}.`, 'tools');
  if (tools.length > 0 && !model.capabilities.tools && !model.capabilities.function_calling) {
    throw badRequest(`Model '${model.id}' does not support tools.`, 'tools');
  }
  const names = new Set<string>();
  return tools.map((tool, i) => {
    const definition = validateTool(tool, `tools[${i}]`);
    if (names.has(definition.function.name)) {
      throw badRequest(
        `'tools[${i}].function.name' repeats the tool name '${definition.function.name}'; tool names must be unique.`,
        `tools[${i}].function.name`,
      );
    }
    names.add(definition.function.name);
    return definition;
  });
}

/** Checks `tool_choice` against the validated tools; returns it typed (undefined when not set). */
export function validateToolChoice(choice: unknown, tools: readonly ToolDefinition[]): ToolChoice | undefined {
  if (!isSet(choice)) return undefined;
  if (tools.length === 0) {
    throw badRequest(
      "'tool_choice' is set but the request has no 'tools'; send tools or omit tool_choice.",
      'tool_choice',
    );
  }
  if (typeof choice === 'string') {
    if (choice === 'none' || choice === 'auto' || choice === 'required') return choice;
    throw badRequest(
      `'tool_choice' must be 'none', 'auto', 'required' or a function object, got ${describeValue(choice)}.`,
      'tool_choice',
    );
  }
  const object = requireObject(choice, 'tool_choice');
  if (object['type'] !== 'function') {
    throw badRequest(
      `'tool_choice.type' must be 'function', got ${describeValue(object['type'])}.`,
      'tool_choice.type',
    );
  }
  const fn = requireObject(object['function'], 'tool_choice.function');
  const name = requireString(fn['name'], 'tool_choice.function.name');
  if (!tools.some((tool) => tool.function.name === name)) {
    throw badRequest(
      `'tool_choice' names the function '${name}', which is not among the request's tools.`,
      'tool_choice.function.name',
    );
  }
  return { type: 'function', function: { name } };
}
