/**
 * Token counts of one request: from the server's `usage` when it sent one, else counted with the real
 * tokenizer on the text received (input: what the workload built, token-exact) and flagged estimated.
 * The mismatch check compares the tokenizer count of the text received with usage.completion_tokens;
 * counting chunks is no check at all (servers put several tokens in a chunk, or none).
 */
import type { RequestRecord } from '../client/request-record.js';
import { countTokens } from '../util/tokenizer.js';

export interface TokenCounts {
  input: number;
  output: number;
  /** NaN when unknown (usage without completion_tokens_details). */
  reasoning: number;
  /** NaN when unknown (usage without prompt_tokens_details, or no usage). */
  cached: number;
  /** True when counted by the client's tokenizer because the server sent no usage. */
  estimated: boolean;
  /** |tokenizer count of the received text - usage.completion_tokens|; NaN when not checked. */
  mismatch: number;
  /** True when the mismatch is beyond tolerance (see isTokenMismatch). */
  mismatched: boolean;
}

export function createTokenCounts(): TokenCounts {
  return { input: Number.NaN, output: Number.NaN, reasoning: Number.NaN, cached: Number.NaN, estimated: false, mismatch: Number.NaN, mismatched: false };
}

/** Tokens of the text the client received (answer, tool-call arguments and reasoning). */
export function receivedTokens(record: RequestRecord): number {
  return countTokens(record.outputText) + countTokens(record.reasoningText);
}

/**
 * A difference counts as a mismatch when it is more than 2 tokens AND more than 2% of the server's count:
 * retokenising a whole text can merge or split a token or two at chunk boundaries, which says nothing
 * about the server's accounting.
 */
export function isTokenMismatch(differenceTokens: number, reportedTokens: number): boolean {
  return differenceTokens > 2 && differenceTokens > 0.02 * reportedTokens;
}

/**
 * Fills `out` with the counts of `record`. `checkMismatch` false skips the tokenizer when usage is
 * present (the collector samples the check under heavy load; without usage the tokenizer always runs).
 */
export function fillTokenCounts(record: RequestRecord, out: TokenCounts, checkMismatch = true): TokenCounts {
  const usage = record.usage;
  if (usage) {
    out.input = usage.prompt_tokens;
    out.output = usage.completion_tokens;
    out.reasoning = usage.completion_tokens_details?.reasoning_tokens ?? Number.NaN;
    out.cached = usage.prompt_tokens_details?.cached_tokens ?? Number.NaN;
    out.estimated = false;
    if (checkMismatch) {
      out.mismatch = Math.abs(receivedTokens(record) - usage.completion_tokens);
      out.mismatched = isTokenMismatch(out.mismatch, usage.completion_tokens);
    } else {
      out.mismatch = Number.NaN;
      out.mismatched = false;
    }
  } else {
    const reasoning = countTokens(record.reasoningText);
    out.input = record.expectedInputTokens;
    out.output = countTokens(record.outputText) + reasoning;
    out.reasoning = reasoning;
    out.cached = Number.NaN;
    out.estimated = true;
    out.mismatch = Number.NaN;
    out.mismatched = false;
  }
  return out;
}

/** The counts of `record` in a new object (allocates; the collector reuses one with fillTokenCounts). */
export function tokenCounts(record: RequestRecord, checkMismatch = true): TokenCounts {
  return fillTokenCounts(record, createTokenCounts(), checkMismatch);
}
