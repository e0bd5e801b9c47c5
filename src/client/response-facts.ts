/**
 * What a parsed response tells the record: a stream chunk (`chat.completion.chunk`) or a whole
 * non-streaming body (`chat.completion`): whether it carries generated text and of which kind, and the
 * usage / time_info / finish_reason / tier it may carry. Tolerant of any OpenAI-compatible server: every
 * field is checked, nothing is assumed present.
 */
import type { TimeInfo, Usage } from '../protocol/chat.js';
import { isObject, nonEmptyString, type Json } from './json-shape.js';
import type { RequestRecord } from './request-record.js';
import { applyToolCallFragment } from './tool-call-assembly.js';

/**
 * Applies one chunk that arrived at `atUs`. The caller has counted it and set firstChunkUs.
 *
 * A chunk carries generated text when a choice's delta has non-empty `content`, `reasoning` (or vLLM's
 * `reasoning_content`), tool-call `function.arguments`, or a tool-call fragment that opens a call with a
 * function `name`: the name is text the model generated (servers often send it alone in the first
 * tool-call chunk, arguments following), so the first token of a tool call is that chunk. Role-only and
 * empty deltas never count.
 */
export function applyStreamChunk(record: RequestRecord, chunk: Json, atUs: number): void {
  const generated = applyChoices(record, chunk['choices'], 'delta');
  if (generated & ANSWER && Number.isNaN(record.firstOutputUs)) record.firstOutputUs = atUs;
  if (generated !== 0) {
    if (Number.isNaN(record.firstTokenUs)) record.firstTokenUs = atUs;
    record.lastTokenUs = atUs;
    record.tokenChunkTimesUs.push(atUs);
  }
  applyResponseExtras(record, chunk);
}

/** Bit flags of what a chunk or body generated (flags, not an object: no allocation per chunk). */
const REASONING = 1;
const ANSWER = 2;

/**
 * Appends the generated text of every choice (`delta` in a stream chunk, `message` in a whole body) to
 * the record, takes finish_reason, and returns REASONING | ANSWER for what was generated.
 */
function applyChoices(record: RequestRecord, choices: unknown, part: 'delta' | 'message'): number {
  if (!Array.isArray(choices)) return 0;
  let generated = 0;
  for (let c = 0; c < choices.length; c += 1) {
    const choice: unknown = choices[c];
    if (!isObject(choice)) continue;
    const message = choice[part];
    if (isObject(message)) {
      const content = message['content'];
      if (nonEmptyString(content)) {
        record.outputText += content;
        // Only when something reads it (answer checks, a conversation): request-record.ts keepContent.
        if (record.keepContent) record.content += content;
        generated |= ANSWER;
      }
      const reasoning = nonEmptyString(message['reasoning']) ? message['reasoning'] : message['reasoning_content'];
      if (nonEmptyString(reasoning)) {
        record.reasoningText += reasoning;
        generated |= REASONING;
      }
      const toolCalls = message['tool_calls'];
      if (Array.isArray(toolCalls) && applyToolCallDeltas(record, toolCalls)) generated |= ANSWER;
    }
    const finish = choice['finish_reason'];
    if (nonEmptyString(finish)) record.finishReason = finish;
  }
  return generated;
}

/** Tool-call fragments (tool-call-assembly.ts): arguments are answer text; a name opening a call counts as generated too. */
function applyToolCallDeltas(record: RequestRecord, toolCalls: readonly unknown[]): boolean {
  let generated = false;
  for (let t = 0; t < toolCalls.length; t += 1) {
    if (applyToolCallFragment(record, toolCalls[t], t)) generated = true;
  }
  return generated;
}

/**
 * usage, time_info and service_tier_used, from whichever chunk (or body) carries them; the response `id`
 * and `system_fingerprint` from the first one that does (every chunk of a stream repeats them).
 */
export function applyResponseExtras(record: RequestRecord, body: Json): void {
  if (record.responseId === null) {
    const id = body['id'];
    if (nonEmptyString(id)) record.responseId = id;
  }
  if (record.systemFingerprint === null) {
    const fingerprint = body['system_fingerprint'];
    if (nonEmptyString(fingerprint)) record.systemFingerprint = fingerprint;
  }
  const usage = body['usage'];
  if (isObject(usage) && typeof usage['completion_tokens'] === 'number') record.usage = usage as unknown as Usage;
  const timeInfo = body['time_info'];
  if (isObject(timeInfo)) record.timeInfo = timeInfo as unknown as TimeInfo;
  const tier = body['service_tier_used'];
  if (nonEmptyString(tier)) record.serviceTierUsed = tier;
}

/**
 * A non-streaming completion body (`chat.completion`) received whole at `atUs`: the first token is only
 * seen with the whole response, so every token timestamp is that instant and no chunk times are kept.
 * firstOutputUs is set only when there is answer content or a tool call (a reasoning-only answer cut
 * by max tokens has none).
 */
export function applyCompletionBody(record: RequestRecord, body: Json, atUs: number): void {
  record.firstChunkUs = atUs;
  const generated = applyChoices(record, body['choices'], 'message');
  if (generated & ANSWER) record.firstOutputUs = atUs;
  if (generated !== 0) {
    record.firstTokenUs = atUs;
    record.lastTokenUs = atUs;
  }
  applyResponseExtras(record, body);
}
