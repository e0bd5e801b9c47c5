/**
 * The sequential test of one SLO's exceedance: its error rates over seeded simulations at the edges of the
 * indifference zone (independent requests, and requests clustered in time, with and without deflation by
 * the design effect), the minimum number of clean requests for a PASS, a fast FAIL under overload, and
 * determinism.
 */
import { describe, expect, it } from 'vitest';
import { ExceedanceSprt } from '../../../../src/aggregate/capacity/exceedance-sprt.js';
import { createRng } from '../../../../src/util/rng.js';
import { rateOf, runSprt } from './simulate.js';

const P99 = { allowed: 0.01 };
const P0 = 0.005; // q (1 - d)
const P1 = 0.015; // q (1 + d)
const RUNS = 2000;
const seeds = (base: number) => (i: number) => createRng(base + i);

describe('ExceedanceSprt error rates (2000 seeded runs each, blocks of 20 requests)', () => {
  it('FAILs a true pass (p = p0) at most alpha and PASSes a true fail (p = p1) at most beta', () => {
    // Measured: 0.0245 and 0.052 (Wald's bounds guarantee alpha / (1 - beta) = 0.053 and beta / (1 - alpha)).
    expect(rateOf('fail', RUNS, seeds(1000), P99, P0)).toBeLessThanOrEqual(0.05 + 0.01);
    expect(rateOf('pass', RUNS, seeds(1000), P99, P1)).toBeLessThanOrEqual(0.05 + 0.01);
  });

  it('FAILs a p90 step 5% over at most alpha and PASSes one 15% over at most beta, in small blocks', () => {
    // The edges of a p90's indifference zone in blocks of 5 (one stream's requests in a 250 ms block): the
    // claim 10 one-step searches against test/helpers/known-latency-server.ts made on sockets before
    // (test/integration/runner/capacity-coverage.test.ts, now removed), over 2000 runs.
    const P90 = { allowed: 0.1 };
    const fails = rateOf('fail', RUNS, seeds(5000), P90, 0.05, { blockSize: 5 });
    const passes = rateOf('pass', RUNS, seeds(6000), P90, 0.15, { blockSize: 5 });
    expect(fails).toBeLessThanOrEqual(0.05 + 0.01);
    expect(passes).toBeLessThanOrEqual(0.05 + 0.01);
  });

  it('fails a p99 SLO with 2% errors in almost every run', () => {
    expect(rateOf('fail', RUNS, seeds(3000), P99, 0.02)).toBeGreaterThanOrEqual(0.97); // measured 0.991
  });

  it('with clustered exceedances, deflation by the design effect keeps the FAIL error near alpha', () => {
    // Beta-binomial blocks, intra-block correlation 0.05: design effect 1 + 19 x 0.05 = 1.95.
    const clustered = { rho: 0.05 };
    const deflated = rateOf('fail', RUNS, seeds(1000), P99, P0, clustered); // measured 0.028
    const plain = rateOf('fail', RUNS, seeds(1000), { ...P99, deflate: false }, P0, clustered); // measured 0.0855
    expect(deflated).toBeLessThanOrEqual(0.05 + 0.01);
    expect(plain).toBeGreaterThan(0.07);
    expect(plain).toBeGreaterThan(2 * deflated);
  });

  it('with clustered exceedances, a design-effect floor keeps the PASS error near beta (the estimate alone cannot)', () => {
    const clustered = { rho: 0.05 };
    // A run heading for PASS sees few exceedances, too few to show clustering: measured 0.16 without a floor.
    const estimated = rateOf('pass', RUNS, seeds(1000), P99, P1, clustered);
    const floored = rateOf('pass', RUNS, seeds(1000), { ...P99, minDesignEffect: 1.95 }, P1, clustered); // 0.037
    expect(floored).toBeLessThanOrEqual(0.05 + 0.01);
    expect(estimated).toBeGreaterThan(floored);
  });

  it('measures the design effect of clustered blocks and divides the LLR by it', () => {
    // Blocks of 10 alternating 3 and 0 exceeded: p = 0.15 overall, far more variable than binomial.
    const options = { allowed: 0.15 };
    const deflated = new ExceedanceSprt(options);
    const plain = new ExceedanceSprt({ ...options, deflate: false });
    const blocks = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 3 : 0));
    let raw = 0;
    for (const exceeded of blocks) {
      deflated.addBlock(exceeded, 10);
      plain.addBlock(exceeded, 10);
      raw += exceeded * Math.log(0.225 / 0.075) + (10 - exceeded) * Math.log(0.775 / 0.925);
    }
    // Pearson: every block is 1.5 from the expected 1.5, over 10 x 0.15 x 0.85; 12 blocks, 11 degrees of freedom.
    expect(deflated.designEffect).toBeCloseTo(((1.5 * 1.5) / 1.275) * (12 / 11), 9);
    expect(deflated.llr).toBeCloseTo(raw / deflated.designEffect, 9);
    expect(plain.designEffect).toBe(1);
    expect(plain.decision).toBe('fail'); // the raw LLR reached 3.22 > 2.94 at the 9th block
    expect(plain.requests).toBe(90);
    expect(deflated.decision).toBe('undecided');
  });
});

describe('ExceedanceSprt decisions', () => {
  it('never PASSes a p99 on fewer than 290 clean requests; the first PASS comes at 292', () => {
    const test = new ExceedanceSprt(P99);
    while (test.decision === 'undecided') test.addBlock(0, 1);
    expect(test.decision).toBe('pass');
    expect(test.requests).toBe(292);
  });

  it('can only FAIL or stay undecided on a step of 40 requests, whatever the blocks', () => {
    for (let exceeded = 0; exceeded <= 40; exceeded++) {
      for (const blockSize of [1, 5, 8, 20, 40]) {
        const test = new ExceedanceSprt(P99);
        let left = exceeded;
        for (let sent = 0; sent < 40; sent += blockSize) {
          const bad = Math.min(left, blockSize);
          left -= bad;
          test.addBlock(bad, blockSize);
        }
        expect(test.decision).not.toBe('pass');
        if (exceeded >= 4) expect(test.decision).toBe('fail');
      }
    }
  });

  it('FAILs a clear overload at once: 10 exceedances in the first 20 requests', () => {
    const oneBlock = new ExceedanceSprt(P99);
    oneBlock.addBlock(10, 20);
    expect(oneBlock.decision).toBe('fail');
    const perRequest = new ExceedanceSprt(P99);
    for (let i = 0; i < 20 && perRequest.decision === 'undecided'; i++) perRequest.addBlock(i % 2, 1);
    expect(perRequest.decision).toBe('fail');
    expect(perRequest.requests).toBeLessThanOrEqual(8);
  });

  it('is final at the first crossing: later blocks are not counted', () => {
    const test = new ExceedanceSprt(P99);
    test.addBlock(5, 10);
    expect(test.decision).toBe('fail');
    test.addBlock(0, 5000);
    expect(test.decision).toBe('fail');
    expect(test.requests).toBe(10);
  });

  it('gives the same decision, counts and LLR for the same input', () => {
    const a = runSprt(createRng(42), P99, 0.01, { rho: 0.05 });
    const b = runSprt(createRng(42), P99, 0.01, { rho: 0.05 });
    expect(b.test.describe('ttft_ms.p99')).toBe(a.test.describe('ttft_ms.p99'));
    expect(b.test.llr).toBe(a.test.llr);
  });

  it('describes its decision on one line with n, the fractions, the LLR and its bound', () => {
    const test = new ExceedanceSprt(P99);
    test.addBlock(0, 300);
    expect(test.describe('ttft_ms.p99')).toBe(
      'PASS: 0 of 300 exceeded ttft_ms.p99 (0.00%, allowed 1%), LLR -3.03 <= -2.94 (alpha 0.05, beta 0.05)',
    );
    const open = new ExceedanceSprt({ allowed: 0.05 });
    open.addBlock(1, 10);
    expect(open.describe('error_rate')).toMatch(
      /^UNDECIDED: 1 of 10 exceeded error_rate \(10\.00%, allowed 5%\), LLR .* within \(-2\.94, 2\.94\)/,
    );
  });

  it('rejects options outside their ranges and impossible blocks', () => {
    expect(() => new ExceedanceSprt({ allowed: 0 })).toThrow(/allowed/);
    expect(() => new ExceedanceSprt({ allowed: 0.01, alpha: 0.6 })).toThrow(/alpha/);
    expect(() => new ExceedanceSprt({ allowed: 0.7, indifference: 0.5 })).toThrow(/below 1/);
    expect(() => new ExceedanceSprt(P99).addBlock(3, 2)).toThrow(/bad block/);
  });
});
