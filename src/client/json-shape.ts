/** Narrowing helpers for JSON of unknown shape from any server (the client trusts no field's presence). */

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** True for a non-null object (arrays included; callers check the fields they read). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

/** True for a string with at least one character. */
export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
