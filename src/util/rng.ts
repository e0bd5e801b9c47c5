/**
 * Seeded randomness. Everything random in the workload, the schedule and the emulator draws from an Rng
 * built from a seed, so a run is reproducible. xoshiro128** (fast, 32-bit state words, good statistics);
 * seeds are expanded with splitmix32 so that neighbouring seeds give unrelated streams.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** A new independent generator derived from this one and a label (stable across runs). */
  fork(label: string | number): Rng;
}

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a of a string, to turn labels (model ids, scenario names) into seed material. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

class Xoshiro128 implements Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    const mix = splitmix32(seed);
    this.#a = mix();
    this.#b = mix();
    this.#c = mix();
    this.#d = mix();
    if ((this.#a | this.#b | this.#c | this.#d) === 0) this.#a = 1;
  }

  #nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.#b, 5), 7), 9) >>> 0;
    const t = this.#b << 9;
    this.#c ^= this.#a;
    this.#d ^= this.#b;
    this.#b ^= this.#c;
    this.#a ^= this.#d;
    this.#c ^= t;
    this.#d = rotl(this.#d, 11);
    return result;
  }

  next(): number {
    return this.#nextUint32() / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  fork(label: string | number): Rng {
    const salt = typeof label === 'number' ? label >>> 0 : hashString(label);
    return new Xoshiro128((this.#nextUint32() ^ Math.imul(salt, 0x27d4eb2d)) >>> 0);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

export function createRng(seed: number): Rng {
  return new Xoshiro128(seed >>> 0);
}
