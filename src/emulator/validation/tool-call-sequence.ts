/**
 * The version-2 rules on how tool calls and tool results are laid out in a conversation (spec "Errors",
 * rules 1, 2 and 4): every call of an assistant message is answered by a tool message in the run of tool
 * messages right after it, every tool message answers a call of an earlier assistant message, and no
 * call id appears twice in one request. Runs after the per-message shape checks.
 */
import type { ChatMessage } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';

/** Throws a 400 on the first broken tool-call rule (1, 2 or 4), naming the message and call. */
export function checkToolCallSequence(messages: readonly ChatMessage[]): void {
  const seenCallIds = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      if (!seenCallIds.has(message.tool_call_id)) {
        throw badRequest(
          `'messages[${i}]' is a tool message for tool_call_id '${message.tool_call_id}', which no earlier assistant message called.`,
          `messages[${i}].tool_call_id`,
        );
      }
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls || message.tool_calls.length === 0) continue;
    message.tool_calls.forEach((call, j) => {
      if (seenCallIds.has(call.id)) {
        throw badRequest(
          `Duplicate tool call id '${call.id}' at 'messages[${i}].tool_calls[${j}].id': tool call ids must be unique within a request.`,
          `messages[${i}].tool_calls[${j}].id`,
        );
      }
      seenCallIds.add(call.id);
    });
    const answered = new Set<string>();
    for (let k = i + 1; k < messages.length; k++) {
      const next = messages[k]!;
      if (next.role !== 'tool') break;
      answered.add(next.tool_call_id);
    }
    message.tool_calls.forEach((call, j) => {
      if (!answered.has(call.id)) {
        throw badRequest(
          `Tool call '${call.id}' at 'messages[${i}].tool_calls[${j}]' has no tool message immediately following the assistant message; send one tool message per call right after it.`,
          `messages[${i}].tool_calls[${j}].id`,
        );
      }
    });
  }
}
