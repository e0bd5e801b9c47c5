/**
 * Exact USD arithmetic. A price such as 0.0000002 USD per token has no exact binary floating-point value,
 * and a sum of millions of such products drifts; so amounts are BigInt counts of 1e-18 USD (atto-dollars),
 * parsed from decimal strings (the catalog's form) or numbers, multiplied by integer token counts with no
 * rounding at all, and printed back as decimal strings. Only a reported figure becomes a JSON number: the
 * double nearest its exact decimal, exactly what the decimal literal itself parses to.
 */

/** Atto-dollars (1e-18 USD) per USD. */
const SCALE_DIGITS = 18;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

/** A non-negative decimal, optionally with an exponent ("0.0000002", "2e-7", "12.5"). */
const DECIMAL = /^(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * `value` USD as atto-dollars; null when it is no non-negative decimal. Digits beyond the 18th decimal are
 * rounded half up (no price comes near that).
 */
export function parseUsd(value: string | number): bigint | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = DECIMAL.exec(text);
  if (match === null) return null;
  const digits = `${match[1]}${match[2] ?? ''}`;
  // The value is digits x 10^(exponent - decimals); shifted to atto-dollars.
  const shift = SCALE_DIGITS + Number(match[3] ?? 0) - (match[2] ?? '').length;
  const whole = BigInt(digits);
  if (shift >= 0) return whole * 10n ** BigInt(shift);
  return divideRounded(whole, 10n ** BigInt(-shift));
}

/** Atto-dollars as a plain decimal string, trailing zeros dropped: 400000000000000n -> "0.0004". */
export function usdString(atto: bigint): string {
  const negative = atto < 0n;
  const magnitude = negative ? -atto : atto;
  const whole = magnitude / SCALE;
  const fraction = (magnitude % SCALE).toString().padStart(SCALE_DIGITS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Atto-dollars as a JSON number (the double nearest the exact decimal). */
export function usdNumber(atto: bigint): number {
  return Number(usdString(atto));
}

/** A decimal in canonical form ("2e-7" -> "0.0000002"), for prices kept as strings; null when invalid. */
export function canonicalUsd(value: string | number): string | null {
  const atto = parseUsd(value);
  return atto === null ? null : usdString(atto);
}

/** numerator / denominator, rounded half up (both non-negative, denominator > 0). */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** An integer count (tokens, requests, µs) as a BigInt; NaN and negatives count as 0. */
export function count(value: number): bigint {
  return Number.isFinite(value) && value > 0 ? BigInt(Math.round(value)) : 0n;
}
