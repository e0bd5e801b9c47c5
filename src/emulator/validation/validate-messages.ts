/**
 * Validation of `messages`: a non-empty array whose entries have the fields of their role (system,
 * developer, user, assistant, tool), user content as a string or text/image parts, image parts only for
 * vision models and only as base64 data URLs. Fields a role does not define are ignored, because clients
 * echo whole response messages (with `reasoning`, `refusal`, ...) back into the conversation.
 */
import type { ChatMessage } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import { describeValue, isObject, isSet, requireObject, requireString, type JsonObject } from './field-checks.js';
import { checkImageData } from './image-data.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/** `data:<media type>;base64,`: images are inlined, never fetched. The data after it: isBase64. */
const IMAGE_DATA_URL_HEAD = /^data:image\/[a-zA-Z0-9.+-]+;base64,/;
/** 1 for each character of the base64 alphabet, by char code. */
const BASE64_ALPHABET = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  BASE64_ALPHABET[c.charCodeAt(0)] = 1;

/**
 * `url` from `from` on is `[A-Za-z0-9+/]+={0,2}`. A loop over a table, not that regex: it reads megabytes
 * of image data per request, and this takes half the time.
 */
function isBase64(url: string, from: number): boolean {
  let end = url.length;
  for (let padding = 0; padding < 2 && end > from && url.charCodeAt(end - 1) === 0x3d; padding++) end--;
  if (end === from) return false;
  for (let i = from; i < end; i++) {
    const code = url.charCodeAt(i);
    if (code > 127 || BASE64_ALPHABET[code] === 0) return false;
  }
  return true;
}

function checkTextPart(part: JsonObject, param: string): void {
  requireString(part['text'], `${param}.text`);
}

function checkImagePart(part: JsonObject, param: string, model: ModelSpec): void {
  if (!model.capabilities.vision) {
    throw badRequest(
      `Model '${model.id}' does not accept images: 'image_url' content parts need a vision model.`,
      param,
    );
  }
  const image = requireObject(part['image_url'], `${param}.image_url`);
  const url = requireString(image['url'], `${param}.image_url.url`);
  const head = IMAGE_DATA_URL_HEAD.exec(url);
  if (head === null || !isBase64(url, head[0].length)) {
    throw badRequest(
      `'${param}.image_url.url' must be a base64 data URL of the form 'data:image/<type>;base64,<data>'.`,
      `${param}.image_url.url`,
    );
  }
  // The data itself (its header only): images are billed by their size (image-dimensions.ts).
  checkImageData(image, `${param}.image_url`);
}

/** String content, or an array of parts; `allowImages` for user messages. */
function checkContent(content: unknown, param: string, model: ModelSpec, allowImages: boolean): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) {
    throw badRequest(`'${param}' must be a string or an array of content parts, got ${describeValue(content)}.`, param);
  }
  if (content.length === 0) throw badRequest(`'${param}' must not be an empty array.`, param);
  content.forEach((part, j) => {
    const partParam = `${param}[${j}]`;
    const object = requireObject(part, partParam);
    if (object['type'] === 'text') checkTextPart(object, partParam);
    else if (object['type'] === 'image_url' && allowImages) checkImagePart(object, partParam, model);
    else {
      const allowed = allowImages ? "'text' or 'image_url'" : "'text'";
      throw badRequest(
        `'${partParam}.type' must be ${allowed}, got ${describeValue(object['type'])}.`,
        `${partParam}.type`,
      );
    }
  });
}

function checkToolCalls(calls: unknown, param: string): void {
  if (!Array.isArray(calls))
    throw badRequest(`'${param}' must be an array of tool calls, got ${describeValue(calls)}.`, param);
  calls.forEach((call, j) => {
    const callParam = `${param}[${j}]`;
    const object = requireObject(call, callParam);
    const id = requireString(object['id'], `${callParam}.id`);
    if (id.length === 0) throw badRequest(`'${callParam}.id' must not be empty.`, `${callParam}.id`);
    if (object['type'] !== 'function') {
      throw badRequest(
        `'${callParam}.type' must be 'function', got ${describeValue(object['type'])}.`,
        `${callParam}.type`,
      );
    }
    const fn = requireObject(object['function'], `${callParam}.function`);
    requireString(fn['name'], `${callParam}.function.name`);
    requireString(fn['arguments'], `${callParam}.function.arguments`);
  });
}

function checkMessage(message: JsonObject, param: string, model: ModelSpec): void {
  const role = message['role'];
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    throw badRequest(
      `'${param}.role' must be one of ${ROLES.map((r) => `'${r}'`).join(', ')}, got ${describeValue(role)}.`,
      `${param}.role`,
    );
  }
  if (isSet(message['name'])) requireString(message['name'], `${param}.name`);
  switch (role) {
    case 'system':
    case 'developer':
      checkContent(message['content'], `${param}.content`, model, false);
      return;
    case 'user':
      checkContent(message['content'], `${param}.content`, model, true);
      return;
    case 'assistant': {
      const hasCalls = isSet(message['tool_calls']);
      if (hasCalls) checkToolCalls(message['tool_calls'], `${param}.tool_calls`);
      if (isSet(message['content'])) checkContent(message['content'], `${param}.content`, model, false);
      else if (!hasCalls) {
        throw badRequest(
          `'${param}' is an assistant message without 'content' or 'tool_calls'; it needs one of them.`,
          `${param}.content`,
        );
      }
      return;
    }
    case 'tool': {
      if (!isSet(message['tool_call_id'])) {
        throw badRequest(
          `'${param}' is a tool message without 'tool_call_id'; it must name the call it answers.`,
          `${param}.tool_call_id`,
        );
      }
      requireString(message['tool_call_id'], `${param}.tool_call_id`);
      checkContent(message['content'], `${param}.content`, model, false);
      return;
    }
  }
}

/** Checks `messages` and returns it typed. */
export function validateMessages(messages: unknown, model: ModelSpec): ChatMessage[] {
  if (!Array.isArray(messages)) {
    throw badRequest(`'messages' must be an array of messages, got ${describeValue(messages)}.`, 'messages');
  }
  if (messages.length === 0) throw badRequest("'messages' must contain at least one message.", 'messages');
  messages.forEach((message, i) => {
    if (!isObject(message))
      throw badRequest(`'messages[${i}]' must be an object, got ${describeValue(message)}.`, `messages[${i}]`);
    checkMessage(message, `messages[${i}]`, model);
  });
  return messages as ChatMessage[];
}
