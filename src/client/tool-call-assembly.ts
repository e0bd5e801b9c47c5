/**
 * Assembles the tool calls of an answer into `RequestRecord.toolCalls`, from stream fragments
 * (`delta.tool_calls`: `index` says which call a fragment extends; `id` and `function.name` come in the
 * call's first fragment, `function.arguments` in pieces to concatenate) and from a whole message
 * (`message.tool_calls`, complete calls in order). Calls are kept in the order they opened.
 *
 * Some servers send every parallel call with `index` 0 (Ollama ollama/ollama#15457, Dynamo
 * ai-dynamo/dynamo#4723, LiteLLM's Responses bridge BerriAI/litellm#21331): a fragment whose non-empty `id`
 * differs from the id of the call open at its index opens a new call, and later fragments of that index
 * without an id extend the newest one, so such calls are not glued into one. Tool-call chunks never take
 * the chunk-template fast path (chunk-template.ts only reuses chunks whose delta has a text field), so this
 * runs on parsed chunks.
 */
import { isObject, nonEmptyString } from './json-shape.js';
import type { ReceivedToolCall, RequestRecord } from './request-record.js';

/** Most calls one answer may open, and the highest index read: beyond it a fragment is broken, not a reason to grow. */
const MAX_TOOL_CALLS = 1024;

/**
 * The call a fragment of stream `index` (with `id`, '' when it has none) extends: the newest call opened at
 * that index, unless the fragment names another id; otherwise a new call. Null beyond MAX_TOOL_CALLS calls.
 */
function callFor(record: RequestRecord, index: number, id: string): ReceivedToolCall | null {
  const calls = record.toolCalls ?? [];
  const indexes = record.toolCallIndexes ?? [];
  record.toolCalls = calls;
  record.toolCallIndexes = indexes;
  const at = indexes.lastIndexOf(index);
  const open = at === -1 ? undefined : calls[at];
  if (open !== undefined && (id === '' || open.id === '' || open.id === id)) return open;
  if (calls.length >= MAX_TOOL_CALLS) return null;
  const call: ReceivedToolCall = { id: '', name: '', arguments: '' };
  calls.push(call);
  indexes.push(index);
  return call;
}

/**
 * Applies one tool-call fragment (`position`: its place in the array, the index when it has none, as in a
 * whole message). Returns true when it carried generated text: a name opening the call, or arguments
 * (appended to `outputText` too, which counts them for token estimates). A fragment with an `id` and no
 * `function` still opens its call (the id is kept; the name and arguments follow).
 */
export function applyToolCallFragment(record: RequestRecord, fragment: unknown, position: number): boolean {
  if (!isObject(fragment)) return false;
  const rawIndex = fragment['index'];
  const index = Number.isInteger(rawIndex) ? (rawIndex as number) : position;
  if (index < 0 || index >= MAX_TOOL_CALLS) return false;
  const rawId = fragment['id'];
  const id = nonEmptyString(rawId) ? rawId : '';
  const fn = fragment['function'];
  if (!isObject(fn) && id === '') return false;
  const call = callFor(record, index, id);
  if (call === null) return false;
  if (call.id === '' && id !== '') call.id = id;
  if (!isObject(fn)) return false;
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
