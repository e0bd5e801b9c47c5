/**
 * The dialects, one per tool (a file each in this folder), in a registry the compiler checks against
 * DIALECT_NAMES, and the one call that computes them all for a group.
 */
import type { DialectName, GroupDialects } from '../../metrics/dialect-summary.js';
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import type { ResolvedProfile } from '../../profile/resolved-profile.js';
import type { ApiKind } from '../../protocol/apis.js';
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

/**
 * The APIs whose streams the tools' definitions describe: each definition was read in the tool's client of
 * OpenAI's chat completions (and vLLM's, AIPerf's and GuideLLM's of text completions, the same `choices`
 * stream). Another API's stream has no `choices` and events those clients never parse (Anthropic's
 * `message_start`, `ping`, `message_delta`; Responses' typed events), so "vLLM's TTFT" of it would be a
 * number no vLLM run reports: its groups have no dialects (docs/dialects.md, "Which APIs").
 */
export const DIALECT_APIS: ReadonlySet<ApiKind> = new Set<ApiKind>(['chat', 'completions']);

/** The indexes of the profile's groups whose scenario speaks an API other tools' dialects do not describe. */
export function groupsWithoutDialects(profile: Pick<ResolvedProfile, 'groups' | 'scenarios'>): ReadonlySet<number> {
  const without = new Set<number>();
  for (const group of profile.groups) {
    const api = profile.scenarios.find((scenario) => scenario.name === group.scenario)?.api ?? 'chat';
    if (!DIALECT_APIS.has(api)) without.add(group.index);
  }
  return without;
}

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
