/**
 * A confidence interval for a fraction of requests (the exceedance of a step): Wilson's score interval on
 * the effective sample size n / designEffect, so clustered exceedances widen it as they should. Wilson
 * rather than the normal approximation because exceedance fractions sit near 0 (p99: 1%), where the
 * normal interval collapses to [0, 0] on a clean step and goes below 0 otherwise.
 */

/** The 97.5% quantile of the standard normal: a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/**
 * [low, high] for `exceeded` of `total` requests; [0, 1] when total is 0 (nothing is known).
 * The design effect (>= 1) divides both counts, keeping the observed fraction.
 */
export function wilsonInterval(exceeded: number, total: number, designEffect = 1, z = Z_95): [number, number] {
  if (total <= 0) return [0, 1];
  const n = total / Math.max(1, designEffect);
  const p = exceeded / total;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Exact at the edges: a clean step's interval starts at 0, a fully exceeded one ends at 1.
  return [p === 0 ? 0 : Math.max(0, centre - half), p === 1 ? 1 : Math.min(1, centre + half)];
}
