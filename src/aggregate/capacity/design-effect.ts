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

/**
 * One design effect for every step of a search (each step a list of blocks): the Pearson dispersion pooled
 * over steps, each step's blocks measured against that step's own fraction (its load sets its own
 * exceedance), over the pooled degrees of freedom sum(k_s - 1). A step stopped after one or two blocks
 * cannot show its own clustering, but the dispersion of the longer steps around it can: this is the
 * floor the fit puts under each load's own estimate. 1 while fewer than MIN_BLOCKS_FOR_DESIGN_EFFECT - 1
 * degrees of freedom have been seen; never below 1.
 */
export function pooledDesignEffect(steps: readonly (readonly ExceedanceBlock[])[]): number {
  let chiSquare = 0;
  let freedom = 0;
  for (const blocks of steps) {
    const step = new DesignEffectAccumulator();
    for (const block of blocks) step.add(block.exceeded, block.total);
    const p = step.total === 0 ? 0 : step.exceeded / step.total;
    if (step.blocks < 2 || p <= 0 || p >= 1) continue;
    for (const block of blocks) {
      if (block.total <= 0) continue;
      const expected = block.total * p;
      chiSquare += (block.exceeded - expected) ** 2 / (expected * (1 - p));
    }
    freedom += step.blocks - 1;
  }
  if (freedom < MIN_BLOCKS_FOR_DESIGN_EFFECT - 1) return 1;
  return Math.max(1, chiSquare / freedom);
}
