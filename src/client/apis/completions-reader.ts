/**
 * Completions (POST /v1/completions, OpenAI's legacy text API that vLLM, SGLang and llama.cpp serve):
 * `text_completion` stream events and bodies. Each choice carries its generated text in `text` (no delta,
 * no role, no reasoning, no tool calls), `finish_reason` in the last one, and usage in chat's names
 * (prompt_tokens, completion_tokens) in the final event when stream_options.include_usage asks for it.
 * TTFT is the first event with a non-empty `text`; every text is answer text (firstOutputUs = firstTokenUs).
 */
import { isObject, nonEmptyString, type Json } from '../json-shape.js';
import type { RequestRecord } from '../request-record.js';
import { applyResponseExtras } from '../response-facts.js';
import type { ApiReader, TextSlot } from './api-reader.js';

/** Appends every choice's text and takes finish_reason; true when some text was generated. */
function applyTexts(record: RequestRecord, choices: unknown): boolean {
  if (!Array.isArray(choices)) return false;
  let generated = false;
  for (let c = 0; c < choices.length; c += 1) {
    const choice: unknown = choices[c];
    if (!isObject(choice)) continue;
    const text = choice['text'];
    if (nonEmptyString(text)) {
      record.outputText += text;
      if (record.keepContent) record.content += text;
      generated = true;
    }
    const finish = choice['finish_reason'];
    if (nonEmptyString(finish)) record.finishReason = finish;
  }
  return generated;
}

function applyStreamEvent(record: RequestRecord, event: Json, atUs: number): void {
  if (applyTexts(record, event['choices'])) {
    if (Number.isNaN(record.firstTokenUs)) {
      record.firstTokenUs = atUs;
      record.firstOutputUs = atUs;
    }
    record.lastTokenUs = atUs;
    record.tokenChunkTimesUs.push(atUs);
  }
  applyResponseExtras(record, event);
}

function applyBody(record: RequestRecord, body: Json, atUs: number): void {
  record.firstChunkUs = atUs;
  if (applyTexts(record, body['choices'])) {
    record.firstTokenUs = atUs;
    record.firstOutputUs = atUs;
    record.lastTokenUs = atUs;
  }
  applyResponseExtras(record, body);
}

/** The single choice's non-empty `text`: where a completions token event holds its token. */
function completionsTextSlot(event: unknown): TextSlot | null {
  if (!isObject(event)) return null;
  const choices = event['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const choice: unknown = choices[0];
  if (!isObject(choice) || Array.isArray(choice)) return null;
  const text = choice['text'];
  return typeof text === 'string' && text.length > 0 ? { holder: choice, field: 'text', text } : null;
}

export const completionsReader: ApiReader = { applyStreamEvent, applyBody, textSlot: completionsTextSlot };
