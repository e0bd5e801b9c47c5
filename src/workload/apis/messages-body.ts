/**
 * The body of Anthropic's POST /v1/messages (anthropic-version 2023-06-01), from the chat body the workload
 * built:
 * - the leading system (or developer) messages become the top-level `system` (Anthropic has no system
 *   role in `messages`); the user and assistant turns stay in `messages`, their content parts as
 *   Anthropic content blocks (text; images as `image` blocks: a data URL as a base64 source, another URL
 *   as a url source); an assistant's tool_calls become `tool_use` blocks and a `tool` message a user
 *   turn with a `tool_result` block (each turn of a session or tool loop is made here too);
 * - `max_completion_tokens` becomes `max_tokens`, which Anthropic requires: a workload that sets no
 *   output length sends MESSAGES_DEFAULT_MAX_TOKENS (unless request_extra gives max_tokens itself);
 * - `stop` becomes `stop_sequences`, `user` becomes `metadata.user_id`; tools are sent as
 *   `{name, description, input_schema}`, `tool_choice` as `{type: auto|any|none|tool}` and
 *   `parallel_tool_calls: false` as its `disable_parallel_tool_use`;
 * - `stream_options` is dropped (a Messages stream always carries usage) and so is the
 *   `prompt_cache_key` that prompt.prefixes adds (an OpenAI routing hint; Anthropic has none, and a
 *   profile that sets it itself is refused: profile/sections/api.ts).
 * Every other OpenAI-only field (seed, penalties, logprobs, response_format, reasoning_effort, service
 * tiers...) is refused by the profile, so none reaches here; request_extra is sent as given (top_k,
 * thinking...).
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage, ContentPart, TextPart, ToolCall } from '../../protocol/chat.js';

/**
 * `max_tokens` of a request whose workload sets no output length: Anthropic requires one, and 4096 is
 * the smallest output limit among Claude models (Claude 3 Haiku's), so every model accepts it.
 */
export const MESSAGES_DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function imageBlock(url: string): Block {
  const data = DATA_URL.exec(url);
  if (data !== null) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}

function contentBlocks(content: string | readonly (ContentPart | TextPart)[]): string | Block[] {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : imageBlock(part.image_url.url),
  );
}

function textOf(content: string | readonly TextPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

/** A tool call's arguments as the object Anthropic's `input` is; a string that is no JSON object cannot be sent. */
function toolInput(call: ToolCall): Record<string, unknown> | null {
  try {
    const input: unknown = JSON.parse(call.function.arguments === '' ? '{}' : call.function.arguments);
    return typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Why `messages` cannot be laid out as a Messages request (system first, then turns); null when they can. */
function layoutProblem(messages: readonly ChatMessage[]): string | null {
  let turns = 0;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'system' && message.role !== 'developer') turns += 1;
    else if (turns > 0)
      return `Anthropic's system prompt is one top-level field, but message ${i + 1} is a ${message.role} message after the conversation began`;
  }
  return turns === 0
    ? 'a Messages request needs at least one user or assistant message, but this prompt has none'
    : null;
}

/**
 * Why a prompt's messages (a dataset entry's) cannot be sent as a Messages request; null when they can.
 * A tool call's arguments must be a JSON object there (Anthropic's tool_use input is one); in a tool loop
 * the arguments are the server's, and ones that are not a JSON object are sent as `{}`.
 */
export function messagesPromptProblem(messages: readonly ChatMessage[]): string | null {
  const layout = layoutProblem(messages);
  if (layout !== null) return layout;
  for (const [i, message] of messages.entries())
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? [])
        if (toolInput(call) === null)
          return `message ${i + 1} has a tool call whose arguments are not a JSON object (Anthropic's tool_use input is one)`;
  return null;
}

function anthropicMessage(message: ChatMessage): Block {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: contentBlocks(message.content) };
    case 'tool':
      return {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) }],
      };
    default: {
      const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : [];
      const content = message.content ?? '';
      if (calls.length === 0) return { role: 'assistant', content: contentBlocks(content) };
      const text = textOf(content);
      const blocks: Block[] = text === '' ? [] : [{ type: 'text', text }];
      for (const call of calls)
        blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call) ?? {} });
      return { role: 'assistant', content: blocks };
    }
  }
}

function anthropicTools(tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools;
  return tools.map((tool: { function?: { name?: string; description?: string; parameters?: unknown } }) => {
    const fn = tool.function ?? {};
    const out: Block = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
    if (fn.description !== undefined) out.description = fn.description;
    return out;
  });
}

function anthropicToolChoice(choice: unknown, parallel: unknown): Block | undefined {
  let out: Block | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (typeof choice === 'object' && choice !== null) {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    out = { type: 'tool', name };
  }
  if (parallel === false) out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

/** The Messages body of `chat` (a new object: the chat body is not changed). */
export function messagesBody(chat: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const {
    messages,
    max_completion_tokens: maxTokens,
    stop,
    user,
    tools,
    tool_choice: toolChoice,
    parallel_tool_calls: parallel,
    stream_options: _streamOptions,
    prompt_cache_key: _cacheKey,
    ...rest
  } = chat;
  const list = Array.isArray(messages) ? (messages as ChatMessage[]) : [];
  const problem = layoutProblem(list);
  if (problem !== null)
    throw new InferbenchError('BAD_PROFILE', `api: messages: ${problem}`, {
      hint: 'system messages first, then user and assistant turns; or use api: chat',
    });
  const system: string[] = [];
  const turns: Block[] = [];
  for (const message of list) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else turns.push(anthropicMessage(message));
  }
  const body: Record<string, unknown> = { ...rest, messages: turns };
  if (system.length > 0) body.system = system.join('\n\n');
  body.max_tokens = maxTokens ?? rest.max_tokens ?? MESSAGES_DEFAULT_MAX_TOKENS;
  if (stop !== undefined && stop !== null) body.stop_sequences = typeof stop === 'string' ? [stop] : stop;
  if (typeof user === 'string') body.metadata = { ...(rest.metadata as object | undefined), user_id: user };
  if (tools !== undefined && tools !== null) body.tools = anthropicTools(tools);
  const choice = anthropicToolChoice(toolChoice, parallel);
  if (choice !== undefined) body.tool_choice = choice;
  return body;
}
