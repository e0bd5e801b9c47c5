/**
 * The dialects, one per tool (a file each in this folder), in a registry the compiler checks against
 * DIALECT_NAMES, and the one call that computes them all for a group.
 */
import type { DialectName, GroupDialects } from '../../metrics/dialect-summary.js';
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { aiperfDialect } from './aiperf.js';
import { guidellmDialect } from './guidellm.js';
import { llmperfDialect } from './llmperf.js';
import type { DialectFacts } from './request-facts.js';
import { vllmDialect } from './vllm.js';

export const DIALECTS = {
  vllm: vllmDialect,
  aiperf: aiperfDialect,
  guidellm: guidellmDialect,
  llmperf: llmperfDialect,
} as const satisfies Record<DialectName, (facts: DialectFacts) => DialectSummary>;

/** Every dialect of a group's kept requests; undefined when no request carried generated text. */
export function groupDialects(facts: DialectFacts): GroupDialects | undefined {
  if (facts.count === 0) return undefined;
  return {
    vllm: DIALECTS.vllm(facts),
    aiperf: DIALECTS.aiperf(facts),
    guidellm: DIALECTS.guidellm(facts),
    llmperf: DIALECTS.llmperf(facts),
  };
}
