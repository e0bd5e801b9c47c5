/**
 * Token counts of one request: from the server's `usage` when it sent one, else counted with the client's
 * tokenizer on the text received (input: what the workload built, token-exact) and flagged estimated.
 * An embeddings request (record.inputs set) generates nothing: its output counts are NaN, never 0.
 * The mismatch check compares the tokenizer count of the text received with usage.completion_tokens;
 * counting chunks is no check at all (servers put several tokens in a chunk, or none).
 *
 * Pure: the tokenizer's counts of the received text come in as `ReceivedTokens`, counted once per
 * request elsewhere (runner/record-finisher.ts, in slices with the bounded counter) and handed to every
 * consumer of these counts (the collector and requests.csv).
 */
import type { RequestRecord } from '../client/request-record.js';

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
  return {
    input: Number.NaN,
    output: Number.NaN,
    reasoning: Number.NaN,
    cached: Number.NaN,
    estimated: false,
    mismatch: Number.NaN,
    mismatched: false,
  };
}

/** The client tokenizer's counts of the text received; null when it was not counted. */
export interface ReceivedTokens {
  /** Tokens of the answer and tool-call arguments (record.outputText). */
  readonly output: number;
  /** Tokens of the reasoning (record.reasoningText). */
  readonly reasoning: number;
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
 * Fills `out` with the counts of `record`. `received` is the tokenizer's count of the received text:
 * needed when the server sent no usage (the estimate), optional with usage (the mismatch check; null
 * leaves it unchecked, as when the check is sampled out under heavy load).
 */
export function fillTokenCounts(record: RequestRecord, received: ReceivedTokens | null, out: TokenCounts): TokenCounts {
  const usage = record.usage;
  if (usage) {
    out.input = usage.prompt_tokens;
    out.output = usage.completion_tokens;
    out.reasoning = usage.completion_tokens_details?.reasoning_tokens ?? Number.NaN;
    out.cached = usage.prompt_tokens_details?.cached_tokens ?? Number.NaN;
    out.estimated = false;
    if (received) {
      out.mismatch = Math.abs(received.output + received.reasoning - usage.completion_tokens);
      out.mismatched = isTokenMismatch(out.mismatch, usage.completion_tokens);
    } else {
      out.mismatch = Number.NaN;
      out.mismatched = false;
    }
  } else if (!Number.isNaN(record.inputs)) {
    // Embeddings (record.inputs): nothing generated, so no output count; the inputs as the workload built them.
    out.input = record.expectedInputTokens;
    out.output = Number.NaN;
    out.reasoning = Number.NaN;
    out.cached = Number.NaN;
    out.estimated = true;
    out.mismatch = Number.NaN;
    out.mismatched = false;
  } else {
    out.input = record.expectedInputTokens;
    out.output = received ? received.output + received.reasoning : Number.NaN;
    out.reasoning = received ? received.reasoning : Number.NaN;
    out.cached = Number.NaN;
    out.estimated = received !== null;
    out.mismatch = Number.NaN;
    out.mismatched = false;
  }
  return out;
}

/** The counts of `record` in a new object. */
export function tokenCounts(record: RequestRecord, received: ReceivedTokens | null): TokenCounts {
  return fillTokenCounts(record, received, createTokenCounts());
}
