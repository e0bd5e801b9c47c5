/**
 * RecordedValues names say the unit they hold: every per-request metric's field is derived from the
 * registry (µs for *_ms, x1000 for the other scaled metrics, token counts as they are), and a fresh values
 * object has exactly those fields and nothing named in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, metricDefinition } from '../../../src/metrics/metric-registry.js';
import { createRecordedValues, RECORDED_KEY } from '../../../src/metrics/request-values.js';

describe('RecordedValues field names', () => {
  it('name the recorded unit: ttft_ms is held as ttft_us, decode_tps as decode_tps_x1000, tokens as they are', () => {
    expect(RECORDED_KEY.ttft_ms).toBe('ttft_us');
    expect(RECORDED_KEY.schedule_lag_ms).toBe('schedule_lag_us');
    expect(RECORDED_KEY.decode_tps).toBe('decode_tps_x1000');
    expect(RECORDED_KEY.fluidity_index).toBe('fluidity_index_x1000');
    expect(RECORDED_KEY.output_tokens).toBe('output_tokens');
    for (const [metric, key] of Object.entries(RECORDED_KEY)) {
      const scale = metricDefinition(metric)?.scale;
      // A field keeps its metric's name only when the value is in the reported unit.
      expect(key === metric, `${metric} -> ${key}`).toBe(scale === 1);
    }
  });

  it('covers every metric a request has one value of; a fresh values object has those fields, none in ms', () => {
    expect(Object.keys(RECORDED_KEY).sort()).toEqual(METRIC_NAMES.filter((name) => name !== 'itl_ms').sort());
    const fields = Object.keys(createRecordedValues());
    expect(fields).toEqual(expect.arrayContaining(Object.values(RECORDED_KEY)));
    expect(fields.filter((field) => field.endsWith('_ms'))).toEqual([]);
  });
});
