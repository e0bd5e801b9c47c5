/**
 * The strict-schema rules of version 2, for `response_format.json_schema` with `strict: true` and for
 * tools with `function.strict: true`: every object level sets `additionalProperties: false` (Errors,
 * rule 5), lists all its properties in `required`, and enum values match the property's type
 * (Versioning 6(a)). Each rule has its own message naming the JSON pointer of the offending level.
 */
import { badRequest } from '../api-error.js';
import { isObject, type JsonObject } from './field-checks.js';

/** Keywords whose value is one subschema. */
const SINGLE_SUBSCHEMA = ['items', 'not', 'contains', 'if', 'then', 'else'] as const;
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_ARRAYS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;

function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return false;
  }
}

function isObjectLevel(schema: JsonObject): boolean {
  return typesOf(schema).includes('object') || isObject(schema['properties']);
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function checkLevel(schema: JsonObject, path: string, param: string, subject: string): void {
  if (isObjectLevel(schema)) {
    if (schema['additionalProperties'] !== false) {
      throw badRequest(
        `Invalid schema for ${subject}: with strict: true, the object at '${path}' must set 'additionalProperties': false.`,
        param,
      );
    }
    const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
    const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]) : [];
    const missing = properties.filter((name) => !required.includes(name));
    if (missing.length > 0) {
      throw badRequest(
        `Invalid schema for ${subject}: with strict: true, the object at '${path}' must list every property in 'required'; missing ${missing.map((m) => `'${m}'`).join(', ')}.`,
        param,
      );
    }
  }
  const types = typesOf(schema);
  const values = schema['enum'];
  if (Array.isArray(values) && types.length > 0) {
    for (const value of values) {
      if (!types.some((type) => matchesType(value, type))) {
        throw badRequest(
          `Invalid schema for ${subject}: with strict: true, the enum value ${JSON.stringify(value)} at '${path}' does not match the type ${types.map((t) => `'${t}'`).join(' or ')}.`,
          param,
        );
      }
    }
  }
}

function walk(schema: unknown, path: string, param: string, subject: string, depth: number): void {
  // Deeply nested schemas are legal but a request must not make the validator recurse without bound.
  if (!isObject(schema) || depth > 64) return;
  checkLevel(schema, path, param, subject);
  for (const key of SINGLE_SUBSCHEMA) {
    const sub = schema[key];
    if (Array.isArray(sub)) {
      for (const [i, item] of sub.entries()) walk(item, pointer(pointer(path, key), i), param, subject, depth + 1);
    } else walk(sub, pointer(path, key), param, subject, depth + 1);
  }
  for (const key of SUBSCHEMA_ARRAYS) {
    const subs = schema[key];
    if (Array.isArray(subs)) {
      for (const [i, sub] of subs.entries()) walk(sub, pointer(pointer(path, key), i), param, subject, depth + 1);
    }
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map))
      for (const [name, sub] of Object.entries(map))
        walk(sub, pointer(pointer(path, key), name), param, subject, depth + 1);
  }
}

/**
 * Throws a 400 on the first strict-mode violation in `schema`. `subject` names the schema in messages
 * (e.g. "response_format 'answer'" or "tool 'get_weather'").
 */
export function checkStrictSchema(schema: unknown, param: string, subject: string): void {
  walk(schema, '#', param, subject, 0);
}
