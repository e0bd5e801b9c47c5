/**
 * The body of POST /v1/responses (OpenAI's Responses API), from the chat body the workload built:
 * - `messages` become `input`: the user's text as one string when the prompt is one user text (token-exact
 *   as the workload made it), otherwise the message array (`{role, content}` items; text parts as
 *   `input_text`, images as `input_image`; an assistant's tool calls as `function_call` items and a tool
 *   message as a `function_call_output` item, so a dataset's tool history is carried);
 * - `max_completion_tokens` becomes `max_output_tokens`;
 * - `tools` are flat (`{type: "function", name, parameters, strict}`, not under `function`; `strict` is
 *   sent false when the profile did not set it, because Responses defaults it to true where chat defaults
 *   it to false), a named `tool_choice` likewise;
 * - `response_format` becomes `text.format` (`json_schema` flat: name, schema, strict), `reasoning_effort`
 *   becomes `reasoning.effort`;
 * - `stream_options` is dropped: usage always comes in `response.completed`, and chat's include_usage is
 *   not a Responses field.
 * Every other field is sent as the profile set it; the fields Responses cannot carry are refused by the
 * profile (profile/sections/api.ts).
 */
import type { ChatMessage, ContentPart, TextPart, ToolCall } from '../../protocol/chat.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A content part of a message as a Responses input part. */
function inputPart(part: ContentPart | TextPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  return { type: 'input_image', image_url: part.image_url.url, detail: part.image_url.detail ?? 'auto' };
}

/** Content of a message: a string stays a string; parts become input parts. */
function inputContent(content: string | readonly (ContentPart | TextPart)[]): string | Record<string, unknown>[] {
  return typeof content === 'string' ? content : content.map(inputPart);
}

/** The text of a tool message (a function_call_output's `output` is a string). */
function toolOutput(content: string | readonly TextPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function functionCallItem(call: ToolCall): Record<string, unknown> {
  return { type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments };
}

/** The input items of `messages`, in order. */
function inputItems(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: message.tool_call_id, output: toolOutput(message.content) });
      continue;
    }
    if (message.role === 'assistant') {
      const content = message.content;
      if (content !== undefined && content !== null && content.length > 0)
        items.push({ role: 'assistant', content: inputContent(content) });
      for (const call of message.tool_calls ?? []) items.push(functionCallItem(call));
      continue;
    }
    items.push({ role: message.role, content: inputContent(message.content) });
  }
  return items;
}

/** `input` of `messages`: one user text as a string, anything else as the item array. */
export function responsesInput(messages: readonly ChatMessage[]): string | Record<string, unknown>[] {
  const only = messages.length === 1 ? messages[0] : undefined;
  if (only !== undefined && only.role === 'user' && typeof only.content === 'string') return only.content;
  return inputItems(messages);
}

/** A chat tool (`{type, function: {...}}`) as a flat Responses function tool. */
function flatTool(tool: unknown): unknown {
  if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) return tool;
  const { name, description, parameters, strict } = tool.function;
  const flat: Record<string, unknown> = { type: 'function', name };
  if (description !== undefined) flat.description = description;
  flat.parameters = parameters ?? { type: 'object', properties: {} };
  flat.strict = strict ?? false;
  return flat;
}

/** A chat tool_choice naming a function (`{type, function: {name}}`) as Responses' `{type, name}`. */
function flatToolChoice(choice: unknown): unknown {
  if (!isRecord(choice) || choice.type !== 'function' || !isRecord(choice.function)) return choice;
  return { type: 'function', name: choice.function.name };
}

/** Chat's response_format as Responses' text.format (json_schema flat). */
function textFormat(format: unknown): unknown {
  if (!isRecord(format) || format.type !== 'json_schema' || !isRecord(format.json_schema)) return format;
  return { type: 'json_schema', ...format.json_schema };
}

/**
 * The flat tools of each scenario's `tools` array and the `text` of each `response_format` object, made
 * once: every request of a scenario shares the profile's objects, so its Responses bodies share these too
 * (the answer checks key their compiled schemas by these objects: measure/answer-validators.ts).
 */
const flatTools = new WeakMap<object, unknown[]>();
const texts = new WeakMap<object, Record<string, unknown>>();

function toolsOf(tools: readonly unknown[]): unknown[] {
  let flat = flatTools.get(tools);
  if (flat === undefined) {
    flat = tools.map(flatTool);
    flatTools.set(tools, flat);
  }
  return flat;
}

function textOf(format: object): Record<string, unknown> {
  let text = texts.get(format);
  if (text === undefined) {
    text = { format: textFormat(format) };
    texts.set(format, text);
  }
  return text;
}

/** The Responses body of `chat` (a new object: the chat body is not changed). */
export function responsesBody(chat: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const {
    messages,
    max_completion_tokens: maxTokens,
    stream_options: _streamOptions,
    tools,
    tool_choice: toolChoice,
    response_format: responseFormat,
    reasoning_effort: effort,
    ...rest
  } = chat;
  const body: Record<string, unknown> = {
    ...rest,
    input: responsesInput(Array.isArray(messages) ? (messages as ChatMessage[]) : []),
  };
  if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
  if (Array.isArray(tools)) body.tools = toolsOf(tools);
  if (toolChoice !== undefined) body.tool_choice = flatToolChoice(toolChoice);
  if (isRecord(responseFormat))
    body.text = isRecord(rest.text) ? { ...rest.text, format: textFormat(responseFormat) } : textOf(responseFormat);
  if (effort !== undefined && effort !== null)
    body.reasoning = { ...(isRecord(rest.reasoning) ? rest.reasoning : {}), effort };
  return body;
}
