/**
 * Limits on the shape of a decoded request body, checked on the bytes before any parser builds objects:
 * how deeply values nest and how many values there are. The byte cap alone does not bound the cost of
 * parsing: 32 MiB of `{},` is 11 million objects, 17 s of JSON.parse and 750 MB of heap (msgpack's
 * one-byte empty maps: 27 s and 2 GB), which would stall every other request. Values nested deeper than a
 * parser's or serializer's recursion can handle would crash a later JSON.stringify.
 */
import { ApiError } from '../api-error.js';

export interface BodyShapeLimits {
  /** Deepest nesting of arrays and objects (maps); the top-level value is depth 1. */
  readonly maxDepth: number;
  /** Most values in the body: arrays, objects, their elements and members (an upper bound is counted). */
  readonly maxValues: number;
}

/**
 * 128 levels and 100,000 values: far above any chat request (a tool schema nests a few levels; a
 * 1,000-message conversation is about 3,000 values), and small enough that the worst body parses in
 * tens of milliseconds.
 */
export const BODY_SHAPE_LIMITS: BodyShapeLimits = { maxDepth: 128, maxValues: 100_000 };

/** 400: the body nests deeper than the limit. */
export function nestedTooDeep(format: string, maxDepth: number): ApiError {
  return new ApiError(
    400,
    'invalid_request_error',
    'wrong_api_format',
    `The ${format} body nests arrays or objects deeper than ${maxDepth} levels.`,
  );
}

/** 400: the body holds more values than the limit. */
export function tooManyValues(format: string, maxValues: number): ApiError {
  return new ApiError(
    400,
    'invalid_request_error',
    'wrong_api_format',
    `The ${format} body holds more than ${maxValues} values (arrays, objects and their elements).`,
  );
}
