/**
 * Small typed checks shared by the request validators: each either returns the value narrowed or throws
 * a 400 naming the parameter (the `param` of the error body) and what was expected.
 */
import { badRequest } from '../api-error.js';

/** A decoded JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of a received value for error messages (never the whole body). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return String(value);
}

/** The value as an object, or a 400 naming `param`. */
export function requireObject(value: unknown, param: string): JsonObject {
  if (!isObject(value)) throw badRequest(`'${param}' must be an object, got ${describeValue(value)}.`, param);
  return value;
}

/** The value as a string, or a 400 naming `param`. */
export function requireString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw badRequest(`'${param}' must be a string, got ${describeValue(value)}.`, param);
  return value;
}

/** The value as a boolean, or a 400 naming `param`. */
export function requireBoolean(value: unknown, param: string): boolean {
  if (typeof value !== 'boolean') throw badRequest(`'${param}' must be a boolean, got ${describeValue(value)}.`, param);
  return value;
}

/** A finite number within [min, max] inclusive. */
export function requireNumberInRange(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw badRequest(`'${param}' must be a number, got ${describeValue(value)}.`, param);
  }
  if (value < min || value > max) {
    throw badRequest(`'${param}' must be between ${min} and ${max}, got ${value}.`, param);
  }
  return value;
}

/** A safe integer within [min, max] inclusive. */
export function requireIntegerInRange(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw badRequest(`'${param}' must be an integer, got ${describeValue(value)}.`, param);
  }
  if (value < min || value > max) {
    throw badRequest(`'${param}' must be between ${min} and ${max}, got ${value}.`, param);
  }
  return value;
}

/** One of the listed strings. */
export function requireEnum<T extends string>(value: unknown, param: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw badRequest(
      `'${param}' must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, got ${describeValue(value)}.`,
      param,
    );
  }
  return value as T;
}

/** Whether an optional nullable field was given (undefined and null both mean "not set"). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}
