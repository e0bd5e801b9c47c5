/**
 * Weighted isotonic regression by pool-adjacent-violators: the non-decreasing sequence closest to the
 * values in weighted least squares. Exceedance can only grow with load (more load, more queueing), so a
 * step that measured less exceedance than a lighter one is noise, and pooling the two is the maximum
 * likelihood answer for binomial fractions weighted by their request counts. O(n) with a stack of blocks.
 */

/** Fitted values, one per input, non-decreasing. Weights must be positive (leave out points without data). */
export function isotonicFit(values: readonly number[], weights: readonly number[]): number[] {
  const means: number[] = [];
  const blockWeights: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < values.length; i++) {
    let mean = values[i] as number;
    let weight = weights[i] as number;
    let size = 1;
    // Merge with the previous block while it is above this one (a violation of monotonicity).
    while (means.length > 0 && (means[means.length - 1] as number) > mean) {
      const previousWeight = blockWeights.pop() as number;
      const previousMean = means.pop() as number;
      const total = previousWeight + weight;
      mean = (previousMean * previousWeight + mean * weight) / total;
      weight = total;
      size += sizes.pop() as number;
    }
    means.push(mean);
    blockWeights.push(weight);
    sizes.push(size);
  }
  const fitted: number[] = [];
  for (let b = 0; b < means.length; b++) {
    for (let k = 0; k < (sizes[b] as number); k++) fitted.push(means[b] as number);
  }
  return fitted;
}
