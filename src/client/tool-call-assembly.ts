/**
 * Assembles the tool calls of an answer into `RequestRecord.toolCalls`, from stream fragments
 * (`delta.tool_calls`: `index` says which call a fragment extends; `id` and `function.name` come in the
 * call's first fragment, `function.arguments` in pieces to concatenate) and from a whole message
 * (`message.tool_calls`, complete calls in order). Tool-call chunks never take the chunk-template fast
 * path (chunk-template.ts only reuses chunks whose delta has a text field), so this runs on parsed chunks.
 */
import { isObject, nonEmptyString } from './json-shape.js';
import type { ReceivedToolCall, RequestRecord } from './request-record.js';

/** Most calls one answer may open: an `index` beyond this is a broken fragment, not a reason to grow an array. */
const MAX_TOOL_CALLS = 1024;

/** The call at `index`, created (and any gap before it filled) on its first fragment. */
function callAt(record: RequestRecord, index: number): ReceivedToolCall {
  const calls = record.toolCalls ?? [];
  record.toolCalls = calls;
  while (calls.length <= index) calls.push({ id: '', name: '', arguments: '' });
  return calls[index] as ReceivedToolCall;
}

/**
 * Applies one tool-call fragment (`position`: its place in the array, the index when it has none, as in a
 * whole message). Returns true when it carried generated text: a name opening the call, or arguments
 * (appended to `outputText` too, which counts them for token estimates).
 */
export function applyToolCallFragment(record: RequestRecord, fragment: unknown, position: number): boolean {
  if (!isObject(fragment)) return false;
  const fn = fragment['function'];
  if (!isObject(fn)) return false;
  const rawIndex = fragment['index'];
  const index = Number.isInteger(rawIndex) ? (rawIndex as number) : position;
  if (index < 0 || index >= MAX_TOOL_CALLS) return false;
  const call = callAt(record, index);
  const id = fragment['id'];
  if (call.id === '' && nonEmptyString(id)) call.id = id;
  const name = fn['name'];
  let generated = false;
  if (nonEmptyString(name)) {
    // The name comes whole in the first fragment; a server repeating it in later ones does not double it.
    if (call.name === '') call.name = name;
    generated = true;
  }
  const args = fn['arguments'];
  if (nonEmptyString(args)) {
    call.arguments += args;
    record.outputText += args;
    generated = true;
  }
  return generated;
}
