/**
 * Checks a JSON body's nesting depth and value count on its bytes, before JSON.parse builds anything
 * (see body-shape-limits.ts for why). Strings are skipped with indexOf, so a body that is mostly one
 * large string (a base64 image) costs a few milliseconds. Malformed JSON is left to JSON.parse.
 */
import { BODY_SHAPE_LIMITS, type BodyShapeLimits, nestedTooDeep, tooManyValues } from './body-shape-limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Index of the closing quote of the string opened at `openQuote` (bytes.length when unterminated). */
function closingQuote(bytes: Buffer, openQuote: number): number {
  let quote = bytes.indexOf(QUOTE, openQuote + 1);
  while (quote !== -1) {
    let backslashes = 0;
    for (let i = quote - 1; bytes[i] === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return bytes.length;
}

/**
 * Throws a 400 ApiError when the JSON text in `bytes` nests deeper than `limits.maxDepth` or holds more
 * than `limits.maxValues` values (arrays, objects and commas are counted, a bound on the values).
 * Stops at the first excess, so a hostile body is refused after reading only as much as proves it.
 */
export function checkJsonShape(bytes: Buffer, limits: BodyShapeLimits = BODY_SHAPE_LIMITS): void {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      i = closingQuote(bytes, i);
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) throw nestedTooDeep('JSON', limits.maxDepth);
      if (++values > limits.maxValues) throw tooManyValues('JSON', limits.maxValues);
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    } else if (byte === COMMA && ++values > limits.maxValues) {
      throw tooManyValues('JSON', limits.maxValues);
    }
  }
}
