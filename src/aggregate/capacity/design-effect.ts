/**
 * The design effect of exceedance counts taken in blocks of time: how much more the block counts vary
 * than independent requests would (binomial), estimated by the Pearson dispersion statistic
 * phi = sum((x_i - n_i p)^2 / (n_i p (1 - p))) / (k - 1) over k blocks, with p the pooled fraction.
 * Latency spikes come in bursts (a GC pause, a batch of long prompts), so exceedances cluster in time and
 * a count of n requests carries the information of only about n / phi independent ones. Never below 1
 * (under-dispersion is noise at these sizes, and claiming more evidence than binomial is never safe), and
 * 1 until MIN_BLOCKS blocks, when the estimate is too noisy to use. Kept as running sums: O(1) per block.
 */

/** Blocks needed before the dispersion is estimated (below it the design effect is 1). */
export const MIN_BLOCKS_FOR_DESIGN_EFFECT = 5;

/** One block of time: how many requests exceeded the objective, of how many ended in it. */
export interface ExceedanceBlock {
  readonly exceeded: number;
  readonly total: number;
}

/** Running sums of blocks, for the pooled fraction and the dispersion. */
export class DesignEffectAccumulator {
  #blocks = 0;
  #exceeded = 0;
  #total = 0;
  /** sum(x_i^2 / n_i): with the pooled sums it gives sum((x_i - n_i p)^2 / n_i) = this - X^2 / N. */
  #squares = 0;

  /** Adds a block; an empty one (no request ended) carries no information and is not counted. */
  add(exceeded: number, total: number): void {
    if (total <= 0) return;
    this.#blocks += 1;
    this.#exceeded += exceeded;
    this.#total += total;
    this.#squares += (exceeded * exceeded) / total;
  }

  get blocks(): number {
    return this.#blocks;
  }

  get exceeded(): number {
    return this.#exceeded;
  }

  get total(): number {
    return this.#total;
  }

  /** >= 1; 1 until MIN_BLOCKS_FOR_DESIGN_EFFECT blocks or while every request or none exceeded. */
  get value(): number {
    if (this.#blocks < MIN_BLOCKS_FOR_DESIGN_EFFECT) return 1;
    const p = this.#exceeded / this.#total;
    if (p <= 0 || p >= 1) return 1;
    const chiSquare = (this.#squares - (this.#exceeded * this.#exceeded) / this.#total) / (p * (1 - p));
    return Math.max(1, chiSquare / (this.#blocks - 1));
  }
}

/** The design effect of a list of blocks (see the file comment). */
export function designEffectOf(blocks: readonly ExceedanceBlock[]): number {
  const accumulator = new DesignEffectAccumulator();
  for (const block of blocks) accumulator.add(block.exceeded, block.total);
  return accumulator.value;
}
