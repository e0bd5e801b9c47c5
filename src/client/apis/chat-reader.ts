/**
 * Chat completions (POST /v1/chat/completions): `chat.completion.chunk` events and `chat.completion`
 * bodies, read by response-facts.ts; a token's text is the one delta text field of the single choice
 * (chunk-template.ts).
 */
import { chatTextSlot } from '../chunk-template.js';
import { applyCompletionBody, applyStreamChunk } from '../response-facts.js';
import type { ApiReader } from './api-reader.js';

export const chatReader: ApiReader = {
  applyStreamEvent: applyStreamChunk,
  applyBody: applyCompletionBody,
  textSlot: chatTextSlot,
};
