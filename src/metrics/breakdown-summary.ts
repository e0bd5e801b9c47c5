/**
 * summary.json `groups[].breakdowns`: a group's requests counted apart per request label and value (the
 * workload's RequestPlan.labels: `prefix`, `turn`, `tool_round`, ...). Each cell has its own counts, token
 * sums, TTFT and E2E stats and the HDR histograms they come from, so shards merge exactly.
 */

// The types are declared with summary.json's schema (run-summary.ts), which worker threads do not load.
export type { BreakdownLatency, BreakdownStats, GroupBreakdowns } from './run-summary.js';

/** Values a label keeps apart per group; the rest are counted under OVERFLOW_VALUE. */
export const MAX_VALUES_PER_LABEL = 1000;
/** The value that counts a label's values beyond MAX_VALUES_PER_LABEL. */
export const OVERFLOW_VALUE = 'other';
