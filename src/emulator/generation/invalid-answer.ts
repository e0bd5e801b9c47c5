/**
 * The `invalid_answer` fault (`x-emulator-fault: invalid_answer`): a completion whose structured parts are
 * broken the way a sloppy model breaks them, for tests of answer checks. Each tool call loses the last
 * token of its arguments and the content loses its last token, so tool-call arguments and JSON answers no
 * longer parse (the closing brace goes first); finish_reason is unchanged, so nothing looks cut off.
 * Token accounting stays exact: usage counts the tokens that remain.
 */
import type { ToolCall } from '../../protocol/chat.js';
import type { CompletionPlan, PlannedToken } from '../completion-plan.js';

/** Index of the last token of each tool call (by toolIndex), and of the content (-1: none). */
function lastTokens(tokens: readonly PlannedToken[]): { tools: Set<number>; content: number } {
  const tools = new Map<number, number>();
  let content = -1;
  tokens.forEach((token, i) => {
    if (token.kind === 'tool') tools.set(token.toolIndex, i);
    else if (token.kind === 'content') content = i;
  });
  return { tools: new Set(tools.values()), content };
}

/** `content` without its last token `text` (when it ends with it: the tokens are the content's pieces). */
function withoutEnd(content: string | null, text: string): string | null {
  if (content?.endsWith(text) !== true) return content;
  return content.slice(0, content.length - text.length);
}

/** `plan` with the last token of every tool call's arguments and of the content removed. */
export function invalidAnswer(plan: CompletionPlan): CompletionPlan {
  const last = lastTokens(plan.tokens);
  if (last.tools.size === 0 && last.content < 0) return plan;
  const tokens = plan.tokens.filter((_, i) => i !== last.content && !last.tools.has(i));
  const toolCalls: ToolCall[] | null =
    plan.toolCalls === null
      ? null
      : plan.toolCalls.map((call, index) => ({
          ...call,
          function: {
            ...call.function,
            arguments: tokens
              .filter((t) => t.kind === 'tool' && t.toolIndex === index)
              .map((t) => t.text)
              .join(''),
          },
        }));
  const content = last.content < 0 ? plan.content : withoutEnd(plan.content, plan.tokens[last.content]?.text ?? '');
  return { ...plan, tokens, toolCalls, content };
}
