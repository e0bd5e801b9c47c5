/**
 * Deep freeze: a ResolvedProfile is read by every layer and must never change under them. Typed arrays (a
 * trace's records) cannot be frozen (their elements are not properties): they are left as they are, and
 * only read.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
