/**
 * Whether the emulated model calls tools, and which, decided deterministically from the request:
 *
 * - `tool_choice: none` (or no tools): never.
 * - named function: that function, once.
 * - `required`: the tools the last user message names (their function name appears in it, case
 *   insensitive, as a whole word), or the first tool when it names none.
 * - `auto` (the default with tools): only when the conversation ends with a user message that names a
 *   tool or asks for an action with the word "call" or "use"; then as `required`. Otherwise the model
 *   answers with text, in particular right after a tool message (the results are in, time to answer).
 *
 * `parallel_tool_calls: false` keeps only the first selected tool; true (the default) calls each named
 * tool once, in the order of `tools`.
 */
import type { ChatCompletionRequest, ChatMessage, ToolDefinition } from '../../protocol/chat.js';

const ACTION_WORDS = /\b(call|use)\b/i;
const NAME_CHAR = /[a-zA-Z0-9_-]/;

function textOf(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

function mentions(text: string, name: string): boolean {
  const haystack = text.toLowerCase();
  const needle = name.toLowerCase();
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = at > 0 ? haystack[at - 1]! : ' ';
    const after = at + needle.length < haystack.length ? haystack[at + needle.length]! : ' ';
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return true;
  }
  return false;
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return textOf(message);
  }
  return '';
}

function named(tools: readonly ToolDefinition[], text: string): ToolDefinition[] {
  return tools.filter((tool) => mentions(text, tool.function.name));
}

/** The tools to call, in call order; empty when the model answers with text. */
export function selectToolCalls(request: ChatCompletionRequest): ToolDefinition[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return [];
  let selected: ToolDefinition[];
  if (typeof choice === 'object') {
    selected = tools.filter((tool) => tool.function.name === choice.function.name).slice(0, 1);
  } else {
    const last = request.messages[request.messages.length - 1];
    const text = choice === 'required' ? lastUserText(request.messages) : last?.role === 'user' ? textOf(last) : '';
    const mentioned = named(tools, text);
    if (choice === 'auto' && mentioned.length === 0 && !ACTION_WORDS.test(text)) return [];
    selected = mentioned.length > 0 ? mentioned : [tools[0]!];
  }
  return request.parallel_tool_calls === false ? selected.slice(0, 1) : selected;
}
