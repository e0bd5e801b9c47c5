/**
 * The pixels of a synthetic image: seeded RGBA content that encodes to realistic sizes. Flat colour or a
 * plain gradient compresses to almost nothing and pure noise to far more than a photo; a few seeded
 * waves per channel plus light noise land where photographs do (JPEG at quality 85 about 1.4 bits per
 * pixel, PNG about 12). Every value derives from the seed, so equal seeds give equal pixels.
 *
 * Cheap to make: the waves are precomputed per column, row and diagonal, so a pixel costs three
 * additions per channel and one xorshift step per pixel (about 30 ms per megapixel).
 */
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';

/** Peak-to-peak amplitude of the per-pixel noise, in 8-bit levels. */
const NOISE_LEVELS = 12;
const TWO_PI = 2 * Math.PI;

/** One colour channel's waves: value(x, y) = column[x] + row[y] + diagonal[x + y]. */
interface ChannelWaves {
  readonly column: Float32Array;
  readonly row: Float32Array;
  readonly diagonal: Float32Array;
}

/** A wave of `cycles` periods over `length` samples, with amplitude `amplitude` around `offset`. */
function wave(length: number, span: number, cycles: number, amplitude: number, offset: number, rng: Rng): Float32Array {
  const values = new Float32Array(length);
  const frequency = (cycles * TWO_PI) / span;
  const phase = rng.next() * TWO_PI;
  for (let i = 0; i < length; i++) values[i] = offset + amplitude * Math.sin(frequency * i + phase);
  return values;
}

function channelWaves(width: number, height: number, rng: Rng): ChannelWaves {
  const base = 60 + rng.next() * 120;
  return {
    column: wave(width, width, 1 + rng.next() * 6, 40, base, rng),
    row: wave(height, height, 1 + rng.next() * 6, 35, 0, rng),
    diagonal: wave(width + height, width + height, 2 + rng.next() * 10, 20, 0, rng),
  };
}

/**
 * `width` x `height` RGBA pixels (alpha 255), row by row, as the PNG and JPEG encoders take them. The
 * same seed always gives the same bytes.
 */
export function syntheticPixels(width: number, height: number, seed: number): Buffer {
  const rng = createRng(seed);
  const channels = [
    channelWaves(width, height, rng),
    channelWaves(width, height, rng),
    channelWaves(width, height, rng),
  ];
  const [r, g, b] = channels as [ChannelWaves, ChannelWaves, ChannelWaves];
  const buffer = Buffer.alloc(width * height * 4);
  // Clamped to 0..255 and rounded by the typed array itself.
  const out = new Uint8ClampedArray(buffer.buffer, buffer.byteOffset, buffer.length);
  let noise = rng.int(1, 0x7fffffff);
  let o = 0;
  for (let y = 0; y < height; y++) {
    const rowR = r.row[y]!;
    const rowG = g.row[y]!;
    const rowB = b.row[y]!;
    for (let x = 0; x < width; x++, o += 4) {
      // xorshift32: one shared noise value per pixel keeps the colours correlated, as in a photo.
      noise ^= noise << 13;
      noise ^= noise >>> 17;
      noise ^= noise << 5;
      const n = ((noise & 0xff) / 255 - 0.5) * NOISE_LEVELS;
      out[o] = r.column[x]! + rowR + r.diagonal[x + y]! + n;
      out[o + 1] = g.column[x]! + rowG + g.diagonal[x + y]! + n;
      out[o + 2] = b.column[x]! + rowB + b.diagonal[x + y]! + n;
      out[o + 3] = 255;
    }
  }
  return buffer;
}
