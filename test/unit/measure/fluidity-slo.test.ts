/**
 * fluidity_index as an SLO (higher is better): per request for goodput (measure/slo.ts), as a capacity
 * objective (`fluidity_index.p1: 0.9`: at most 1% of requests below 0.9), and in a capacity step block,
 * which counts requests BELOW the limit and every failed request as exceeding.
 */
import { describe, expect, it } from 'vitest';
import { parseCapacitySlo } from '../../../src/aggregate/capacity/capacity-slo.js';
import { createRequestRecord } from '../../../src/client/request-record.js';
import { createSloEvaluator } from '../../../src/measure/slo.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import { StepBlock } from '../../../src/runner/capacity/step-block.js';

function okRecord() {
  const record = createRequestRecord(0, 0, 1_000_000);
  record.status = 200;
  return record;
}

function failedRecord() {
  const record = okRecord();
  record.status = 500;
  record.errorClass = 'http_5xx';
  return record;
}

/** Values with a fluidity index (a fraction; NaN: none). */
function withFluidity(fraction: number) {
  const values = createRecordedValues();
  values.fluidity_index_x1000 = fraction * 1000;
  return values;
}

describe('goodput SLO on fluidity_index', () => {
  const slo = createSloEvaluator({ 'fluidity_index.p1': 0.9 });

  it('a request is good at or above the limit, not below; without a value it does not fail', () => {
    expect(slo.checks).toEqual([{ key: 'fluidity_index.p1', metric: 'fluidity_index', stat: 'p1', limit: 0.9 }]);
    expect(slo.isGood(okRecord(), withFluidity(0.9))).toBe(true);
    expect(slo.isGood(okRecord(), withFluidity(1))).toBe(true);
    expect(slo.isGood(okRecord(), withFluidity(0.899))).toBe(false);
    expect(slo.isGood(okRecord(), withFluidity(Number.NaN))).toBe(true);
    expect(slo.isGood(failedRecord(), withFluidity(1))).toBe(false);
  });
});

describe('capacity objective on fluidity_index', () => {
  it('fluidity_index.p1: 0.9 allows 1% of requests below 0.9; "90%" is the same limit', () => {
    expect(parseCapacitySlo({ 'fluidity_index.p1': 0.9, 'fluidity_index.p10': '95%' })).toEqual([
      { key: 'fluidity_index.p1', metric: 'fluidity_index', allowed: 0.01, limit: 0.9 },
      { key: 'fluidity_index.p10', metric: 'fluidity_index', allowed: 0.1, limit: 0.95 },
    ]);
  });

  it('refuses a high percentile (it would read as "99% may be below") and a limit outside (0, 1]', () => {
    expect(() => parseCapacitySlo({ 'fluidity_index.p99': 0.9 })).toThrow(/p1 to p50/);
    expect(() => parseCapacitySlo({ 'fluidity_index.p1': 1.5 })).toThrow(/at most 1/);
    expect(() => parseCapacitySlo({ 'fluidity_index.p1': '900ms' })).toThrow(/at most 1/);
  });

  it('a step block counts requests below the limit and failed ones, and keeps it through store/restore', () => {
    const [objective] = parseCapacitySlo({ 'fluidity_index.p1': 0.9 });
    const block = new StepBlock();
    // 0.899 and 0 are below 0.9; 0.9 and 1 are not; a request without a value is no exceedance.
    for (const fraction of [1, 0.9, 0.899, 0, 0.95, Number.NaN]) block.add(okRecord(), withFluidity(fraction));
    block.add(failedRecord(), withFluidity(1));
    expect(block.exceedance(objective!)).toEqual({ exceeded: 3, total: 7 });
    expect(StepBlock.restore(block.store()).exceedance(objective!)).toEqual({ exceeded: 3, total: 7 });
  });

  it('a limit off the 0.001 grid: 0.57 counts 0.569 below and 0.57 not', () => {
    const [objective] = parseCapacitySlo({ 'fluidity_index.p5': 0.57 });
    const block = new StepBlock();
    for (const fraction of [0.569, 0.57, 0.571]) block.add(okRecord(), withFluidity(fraction));
    expect(block.exceedance(objective!)).toEqual({ exceeded: 1, total: 3 });
  });
});
