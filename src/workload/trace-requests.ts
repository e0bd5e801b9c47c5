/**
 * Trace replay's requests (`load: { mode: trace }`): request n is record n of the trace (the records the
 * resolved profile carries, read when it was resolved: profile/sections/trace/trace-file.ts), its user
 * message exactly the record's input tokens of synthetic token-exact text and its max_completion_tokens the
 * record's output tokens. A record of 0 tokens (BurstGPT logs
 * failed requests so) is sent with 1: the arrival is part of the load, and no prompt or answer is shorter.
 * Everything is read and sized when the workload is built; a request takes two array lookups and a window
 * of the text pool.
 */
import { InferbenchError } from '../errors.js';
import type { ChatMessage } from '../protocol/chat.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import type { PromptSource } from './prompt-sources.js';
import { requestRng, streamSeed } from './request-seed.js';
import { createSyntheticText } from './synthetic-text.js';

/** The prompts and answer lengths of a trace replay. */
export interface TraceRequests {
  readonly source: PromptSource;
  /** max_completion_tokens of request `index` (record `index`). */
  outputTokens(index: number): number;
}

/** The trace's requests when the scenario replays one; null otherwise. */
export function traceRequests(
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  tokenizer: EncodingTokenizer,
): TraceRequests | null {
  const trace = scenario.load.mode === 'rate' ? scenario.load.trace : undefined;
  if (trace === undefined) return null;
  const records = trace.records;
  const count = records.count;
  if (count === 0)
    throw new InferbenchError('BAD_PROFILE', `trace ${trace.path} has no records to replay`, {
      hint: 'check load.start: records before it are skipped',
    });
  const { inputTokens, outputTokens } = records;
  // A loop, not Math.max(...): a public trace has millions of records, more than a call takes arguments.
  let longest = 1;
  for (const tokens of inputTokens) if (tokens > longest) longest = tokens;
  const named = tokenizer === o200kTokenizer() ? null : tokenizer;
  // Seeded per group (as synthetic prompts are), so groups sharing a model never hit each other's cache.
  const effort = group.reasoningEffort ? [group.reasoningEffort] : [];
  const textBase = streamSeed(scenario.seed, scenario.name, group.model ?? '*', group.tier ?? '-', ...effort, 'text');
  const text = createSyntheticText(textBase, longest, named);
  const system = scenario.prompt.system;
  const systemMessage: ChatMessage | null = system === null ? null : { role: 'system', content: system };
  const systemTokens = system === null ? 0 : tokenizer.count(system);
  return {
    source: {
      build(index) {
        const tokens = Math.max(1, inputTokens[index % count] as number);
        const user: ChatMessage = { role: 'user', content: text.text(requestRng(textBase, index), tokens, false) };
        return {
          messages: systemMessage === null ? [user] : [systemMessage, user],
          expectedInputTokens: systemTokens + tokens,
        };
      },
    },
    outputTokens: (index) => Math.max(1, outputTokens[index % count] as number),
  };
}
