/**
 * Random variates drawn from a seeded Rng: the arrival processes of the open loop and the token-length
 * distributions of workloads. Pure functions of the Rng, so seeded runs repeat exactly.
 */
import type { Rng } from './rng.js';

/** Exponential with the given mean (inter-arrival times of a Poisson process). */
export function exponential(rng: Rng, mean: number): number {
  return -mean * Math.log(1 - rng.next());
}

/** Standard normal via Box-Muller (one value per call; simplicity over speed, off the hot path). */
export function standardNormal(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function normal(rng: Rng, mean: number, stddev: number): number {
  return mean + stddev * standardNormal(rng);
}

/** Log-normal parameterised by the mean and stddev of the resulting values (not of the log). */
export function lognormal(rng: Rng, mean: number, stddev: number): number {
  const variance = stddev * stddev;
  const sigma2 = Math.log(1 + variance / (mean * mean));
  const mu = Math.log(mean) - sigma2 / 2;
  return Math.exp(mu + Math.sqrt(sigma2) * standardNormal(rng));
}

/**
 * Gamma(shape, scale) by Marsaglia-Tsang. With shape = burstiness and scale = mean / shape the mean
 * inter-arrival time is kept while burstiness < 1 makes arrivals clump and > 1 makes them regular
 * (the same parameterisation as vLLM's `--burstiness`).
 */
export function gamma(rng: Rng, shape: number, scale: number): number {
  if (shape < 1) {
    const u = rng.next();
    return gamma(rng, shape + 1, scale) * (u === 0 ? Number.MIN_VALUE : u) ** (1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = standardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}

export function uniform(rng: Rng, min: number, max: number): number {
  return min + (max - min) * rng.next();
}
