/**
 * The histograms in summary.json are standard HdrHistogram V2 compressed encodings: decoded here by an
 * independent reader written from the format description (zlib + ZigZag LEB128 counts), not by the
 * library that wrote them, so another language's HdrHistogram can read our reports.
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createHistogram, encodeHistogram } from '../../../src/aggregate/histogram.js';

const V2_COMPRESSED_COOKIE = 0x1c849304;
const V2_ENCODING_COOKIE = 0x1c849303;

/** Value -> count, keyed by the lowest value of each bucket. */
function readHdrV2(base64: string): { digits: number; counts: Map<number, number>; total: number } {
  const outer = Buffer.from(base64, 'base64');
  expect(outer.readInt32BE(0) & ~0xf0).toBe(V2_COMPRESSED_COOKIE & ~0xf0);
  const compressedLength = outer.readInt32BE(4);
  const inner = inflateSync(outer.subarray(8, 8 + compressedLength));
  expect(inner.readInt32BE(0) & ~0xf0).toBe(V2_ENCODING_COOKIE & ~0xf0);
  const payloadLength = inner.readInt32BE(4);
  const digits = inner.readInt32BE(12);
  const lowest = Number(inner.readBigInt64BE(16));
  const subBucketCount = 2 ** Math.ceil(Math.log2(2 * 10 ** digits));
  const halfCount = subBucketCount / 2;
  const halfMagnitude = Math.log2(halfCount);
  const unitMagnitude = Math.floor(Math.log2(lowest));
  const valueAt = (index: number): number => {
    let bucket = (index >> halfMagnitude) - 1;
    let sub = (index & (halfCount - 1)) + halfCount;
    if (bucket < 0) {
      sub -= halfCount;
      bucket = 0;
    }
    return sub * 2 ** (bucket + unitMagnitude);
  };
  const counts = new Map<number, number>();
  let total = 0;
  let pos = 40;
  const end = 40 + payloadLength;
  let index = 0;
  while (pos < end) {
    // LEB128 (up to 9 bytes), then ZigZag.
    let raw = 0n;
    let shift = 0n;
    for (;;) {
      const byte = inner[pos++] as number;
      raw |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0 || shift >= 63n) break;
    }
    const value = Number((raw >> 1n) ^ -(raw & 1n));
    if (value < 0) {
      index += -value; // a run of empty buckets
    } else {
      if (value > 0) counts.set(valueAt(index), value);
      total += value;
      index++;
    }
  }
  return { digits, counts, total };
}

/** Lowest value of the bucket holding `v` at 3 significant digits (2048 sub-buckets). */
function lowestEquivalent(v: number): number {
  if (v < 2048) return v;
  const width = 2 ** (Math.floor(Math.log2(v)) - 10);
  return Math.floor(v / width) * width;
}

describe('summary histograms are HdrHistogram V2', () => {
  it('an independent reader finds the exact counts in the right buckets', () => {
    const h = createHistogram();
    h.recordValueWithCount(0, 1);
    h.recordValueWithCount(1234, 7);
    h.recordValueWithCount(999_999, 3);
    h.recordValueWithCount(120_000_000, 2);
    const { digits, counts, total } = readHdrV2(encodeHistogram(h));
    expect(digits).toBe(3);
    expect(total).toBe(13);
    // Below 2048 every integer has its own bucket; above, buckets are 2^k wide (3 significant digits).
    expect(counts.get(0)).toBe(1);
    expect(counts.get(1234)).toBe(7);
    expect(counts.get(lowestEquivalent(999_999))).toBe(3);
    expect(lowestEquivalent(999_999)).toBe(999_936);
    expect(counts.get(lowestEquivalent(120_000_000))).toBe(2);
    expect(counts.size).toBe(4);
  });
});
