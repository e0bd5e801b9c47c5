/**
 * Wald's sequential probability ratio test on the exceedance fraction p of one SLO in one capacity step:
 * the fraction of requests that exceeded the SLO's limit (failed ones count as exceeded). An SLO
 * `ttft_ms.p99: 500` holds when p <= q = 1%. The test weighs H0: p <= p0 = q(1 - d) against
 * H1: p >= p1 = q(1 + d) (d: the indifference zone; between p0 and p1 either answer is acceptable) and
 * stops at the first crossing of Wald's bounds: FAIL when the log-likelihood ratio reaches
 * ln((1 - beta) / alpha), PASS when it falls to ln(beta / (1 - alpha)). With the defaults (d 0.5, alpha
 * and beta 0.05) a clean request moves a p99 test by ln(0.985 / 0.995) = -0.0101, so a PASS needs at least
 * 292 clean requests, while one exceedance adds ln 3 = 1.10 and three in the first 34 requests FAIL.
 *
 * Requests arrive in blocks of time (one second, say) because exceedances are correlated: a latency spike
 * hits every request in flight. Wald's error bounds assume independent observations; with clustering the
 * LLR's variance is the binomial one times the design effect D (design-effect.ts), and the chance of
 * crossing the wrong bound grows from alpha to about alpha^(1/D). Dividing the LLR by D (a quasi-likelihood
 * correction) restores the ratio of its drift to its variance that Wald's bounds rely on. The choice made
 * here: the whole LLR so far is divided by the current estimate of D (so every block's increment is
 * deflated by the best estimate, not by the noisier one of its own time), and D is 1 until five blocks,
 * so a clear overload still FAILs within the first second or two. D >= 1 only ever shrinks the LLR
 * towards 0: deflation can delay a decision, never hasten one, so the minimum number of requests for a
 * PASS above holds with it. The decision is final at the first crossing (Wald's stopping rule): blocks
 * added after it are ignored.
 */
import { InferbenchError } from '../../errors.js';
import { DesignEffectAccumulator } from './design-effect.js';

export interface SprtOptions {
  /** Allowed exceedance fraction q: 0.01 for a p99 SLO, 0.05 for p95, the limit for an error-rate SLO (e.g. 0.01). */
  readonly allowed: number;
  /** Relative half-width of the indifference zone: H0 p <= q(1-d), H1 p >= q(1+d). Default 0.5. */
  readonly indifference?: number;
  /** Type I error (declare FAIL when truly p <= p0) and type II (declare PASS when truly p >= p1). Default 0.05 each. */
  readonly alpha?: number;
  readonly beta?: number;
  /** Divide the LLR by the design effect (default true); false gives Wald's plain test, for comparison. */
  readonly deflate?: boolean;
  /**
   * A floor under the estimated design effect (default 1), e.g. the one measured at earlier passing steps of
   * the same group: a step heading for PASS sees few exceedances, too few to show how they cluster.
   */
  readonly minDesignEffect?: number;
}

export type SprtDecision = 'pass' | 'fail' | 'undecided';

interface ResolvedSprt {
  readonly allowed: number;
  readonly alpha: number;
  readonly beta: number;
  readonly deflate: boolean;
  readonly minDesignEffect: number;
  /** LLR increment of one exceeded request, ln(p1/p0), and of one request within the SLO, ln((1-p1)/(1-p0)). */
  readonly exceededLlr: number;
  readonly metLlr: number;
  /** FAIL at or above, PASS at or below. */
  readonly upper: number;
  readonly lower: number;
}

function resolveOptions(options: SprtOptions): ResolvedSprt {
  const { allowed, indifference = 0.5, alpha = 0.05, beta = 0.05, deflate = true, minDesignEffect = 1 } = options;
  const problems: string[] = [];
  if (!(allowed > 0 && allowed < 1)) problems.push(`allowed must be a fraction in (0, 1), got ${allowed}`);
  if (!(indifference > 0 && indifference < 1)) problems.push(`indifference must be in (0, 1), got ${indifference}`);
  else if (!(allowed * (1 + indifference) < 1)) problems.push('allowed x (1 + indifference) must stay below 1');
  if (!(alpha > 0 && alpha < 0.5)) problems.push(`alpha must be in (0, 0.5), got ${alpha}`);
  if (!(beta > 0 && beta < 0.5)) problems.push(`beta must be in (0, 0.5), got ${beta}`);
  if (!(minDesignEffect >= 1)) problems.push(`minDesignEffect must be >= 1, got ${minDesignEffect}`);
  if (problems.length > 0) throw new InferbenchError('BAD_PROFILE', `capacity test: ${problems.join('; ')}`);
  const p0 = allowed * (1 - indifference);
  const p1 = allowed * (1 + indifference);
  return {
    allowed,
    alpha,
    beta,
    deflate,
    minDesignEffect,
    exceededLlr: Math.log(p1 / p0),
    metLlr: Math.log((1 - p1) / (1 - p0)),
    upper: Math.log((1 - beta) / alpha),
    lower: Math.log(beta / (1 - alpha)),
  };
}

/** One SLO's sequential test within one step; feed it blocks, read `decision`. */
export class ExceedanceSprt {
  readonly #options: ResolvedSprt;
  readonly #sums = new DesignEffectAccumulator();
  /** Undeflated LLR: the sum of the per-request increments. */
  #rawLlr = 0;
  #decision: SprtDecision = 'undecided';

  constructor(options: SprtOptions) {
    this.#options = resolveOptions(options);
  }

  /** One block (e.g. one second) of requests: how many exceeded (failed requests count as exceeded) of how many ended. */
  addBlock(exceeded: number, total: number): void {
    if (!(Number.isInteger(exceeded) && Number.isInteger(total) && exceeded >= 0 && exceeded <= total)) {
      throw new InferbenchError('INTERNAL', `capacity test: bad block ${exceeded} of ${total}`);
    }
    if (this.#decision !== 'undecided') return;
    this.#sums.add(exceeded, total);
    this.#rawLlr += exceeded * this.#options.exceededLlr + (total - exceeded) * this.#options.metLlr;
    const llr = this.llr;
    if (llr >= this.#options.upper) this.#decision = 'fail';
    else if (llr <= this.#options.lower) this.#decision = 'pass';
  }

  get decision(): SprtDecision {
    return this.#decision;
  }

  /** Requests counted (those of blocks up to the decision). */
  get requests(): number {
    return this.#sums.total;
  }

  get exceeded(): number {
    return this.#sums.exceeded;
  }

  /** Non-empty blocks counted. */
  get blocks(): number {
    return this.#sums.blocks;
  }

  /** The (deflated) log-likelihood ratio so far: > 0 leans to FAIL, < 0 to PASS. */
  get llr(): number {
    return this.#rawLlr / this.designEffect;
  }

  /** >= 1: between-block variance / binomial variance (1, or minDesignEffect, until five blocks; 1 when deflation is off). */
  get designEffect(): number {
    const { deflate, minDesignEffect } = this.#options;
    return deflate ? Math.max(minDesignEffect, this.#sums.value) : 1;
  }

  /** FAIL at or above this LLR. */
  get upperBound(): number {
    return this.#options.upper;
  }

  /** PASS at or below this LLR. */
  get lowerBound(): number {
    return this.#options.lower;
  }

  /** One line, e.g. "PASS: 3 of 412 exceeded ttft_ms.p99 (0.73%, allowed 1%), LLR -3.10 <= -2.94 (alpha 0.05, beta 0.05)". */
  describe(sloKey: string): string {
    const { allowed, alpha, beta, upper, lower } = this.#options;
    const observed = this.requests === 0 ? 0 : this.exceeded / this.requests;
    const llr = this.llr.toFixed(2);
    const bound =
      this.#decision === 'fail'
        ? `>= ${upper.toFixed(2)}`
        : this.#decision === 'pass'
          ? `<= ${lower.toFixed(2)}`
          : `within (${lower.toFixed(2)}, ${upper.toFixed(2)})`;
    const design = this.designEffect > 1 ? `, design effect ${this.designEffect.toFixed(2)}` : '';
    return (
      `${this.#decision.toUpperCase()}: ${this.exceeded} of ${this.requests} exceeded ${sloKey} ` +
      `(${formatPercent(observed, 2)}, allowed ${formatPercent(allowed)}), LLR ${llr} ${bound} ` +
      `(alpha ${alpha}, beta ${beta}${design})`
    );
  }
}

/** 0.0073 -> "0.73%" with `digits`; without, as short as exact: 0.01 -> "1%", 0.001 -> "0.1%". */
function formatPercent(fraction: number, digits?: number): string {
  const percent = fraction * 100;
  return digits === undefined ? `${Number(percent.toPrecision(6))}%` : `${percent.toFixed(digits)}%`;
}

/**
 * How many requests a step must carry for this test to decide, on average, a load whose share over the
 * limit is at the low edge of the indifference zone (p = p0: a load that clearly holds): Wald's average
 * sample number there, E[N | p0] = ((1 - alpha) ln(beta / (1 - alpha)) + alpha ln((1 - beta) / alpha)) /
 * E[one request's LLR | p0]. With the defaults: 582 for a p99 (the fewest for a PASS, every request
 * within the limit, is 292), 5874 for a p99.9, 53 for a p90. The design effect is left out (it is
 * measured during the search): clustered exceedances need more.
 */
export function requestsToDecide(options: SprtOptions): number {
  const o = resolveOptions(options);
  const p0 = o.allowed * (1 - (options.indifference ?? 0.5));
  const drift = p0 * o.exceededLlr + (1 - p0) * o.metLlr;
  const reach = (1 - o.alpha) * o.lower + o.alpha * o.upper;
  return Math.ceil(reach / drift);
}
