/**
 * Generation: decides a whole completion up front from a validated request, purely and
 * deterministically for a seed. Reasoning tokens first (reasoning models), then either tool calls, JSON
 * (response_format), or prose; capped by max_completion_tokens, the model's output limit and what is left
 * of the context; cut at stop sequences. Every planned token is one real tokenizer token, so usage, the
 * stream and logprobs agree with the text by construction.
 */
import type {
  ChatCompletionRequest,
  ChatMessage,
  FinishReason,
  ToolCall,
  ToolDefinition,
} from '../../protocol/chat.js';
import { createRng, hashString, type Rng } from '../../util/rng.js';
import { generateTokenPieces } from '../../util/token-text.js';
import type { CompletionPlan, PlannedToken } from '../completion-plan.js';
import type { ModelSpec } from '../model-spec.js';
import { answerLength, reasoningLength } from './output-length.js';
import { countPromptTokens } from './prompt-tokens.js';
import { freeformJsonObject, schemaValue } from './schema-value.js';
import { cutPiecesAtStop, firstStopIndex } from './stop-sequences.js';
import { textPieces } from './token-pieces.js';
import { tokenLogprobs } from './token-logprobs.js';
import { selectToolCalls } from './tool-selection.js';

interface Segment {
  readonly kind: PlannedToken['kind'];
  readonly pieces: readonly string[];
  readonly toolIndex: number;
}

interface Answer {
  readonly segments: Segment[];
  readonly content: string | null;
  readonly toolCalls: ToolCall[] | null;
  readonly finishReason: FinishReason;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const THINK_OPEN = '<think>\n';
const THINK_CLOSE = '\n</think>';
const NO_TOP: PlannedToken['top'] = Object.freeze([]);

function messageHash(message: ChatMessage): number {
  const content = message.content;
  let text = message.role;
  if (typeof content === 'string') text += content;
  else if (Array.isArray(content)) for (const part of content) text += part.type === 'text' ? part.text : '[image]';
  return hashString(text);
}

/**
 * The seed of the whole plan. The prompt is mixed in so different prompts get different answers under
 * one seed. Without a seed, temperature 0 is greedy decoding: the answer depends on the prompt alone;
 * otherwise the server's per-request fallback seed makes unseeded answers vary.
 */
function planSeed(request: ChatCompletionRequest, model: ModelSpec, fallbackSeed: number): number {
  let promptHash = hashString(model.id);
  for (const message of request.messages) promptHash = Math.imul(promptHash ^ messageHash(message), 0x01000193) >>> 0;
  const seed = request.seed ?? (request.temperature === 0 ? null : fallbackSeed);
  if (seed === null) return promptHash;
  const low = seed >>> 0;
  const high = Math.floor(seed / 4294967296) >>> 0;
  return (low ^ Math.imul(high ^ promptHash, 0x27d4eb2d)) >>> 0;
}

function callId(rng: Rng): string {
  let id = 'call_';
  for (let i = 0; i < 24; i++) id += ID_ALPHABET[rng.int(0, ID_ALPHABET.length - 1)];
  return id;
}

function toolArguments(tool: ToolDefinition, rng: Rng): string {
  const parameters = tool.function.parameters;
  if (!parameters) return '{}';
  const value = schemaValue(parameters, rng);
  return JSON.stringify(typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {});
}

function planToolCalls(tools: readonly ToolDefinition[], budget: number, rng: Rng): Answer {
  const segments: Segment[] = [];
  const toolCalls: ToolCall[] = [];
  let left = budget;
  let truncated = false;
  for (const [index, tool] of tools.entries()) {
    const id = callId(rng.fork(`id-${index}`));
    let pieces = textPieces(toolArguments(tool, rng.fork(`arguments-${index}`)));
    if (left <= 0) {
      truncated = true;
      break;
    }
    if (pieces.length > left) {
      pieces = pieces.slice(0, left);
      truncated = true;
    }
    left -= pieces.length;
    segments.push({ kind: 'tool', pieces, toolIndex: index });
    toolCalls.push({ id, type: 'function', function: { name: tool.function.name, arguments: pieces.join('') } });
    if (truncated) break;
  }
  if (toolCalls.length === 0) return { segments, content: '', toolCalls: null, finishReason: 'length' };
  return { segments, content: null, toolCalls, finishReason: truncated ? 'length' : 'tool_calls' };
}

function stopList(request: ChatCompletionRequest): string[] {
  const stop = request.stop;
  if (stop === undefined || stop === null) return [];
  return typeof stop === 'string' ? [stop] : stop;
}

function planJson(request: ChatCompletionRequest, budget: number, rng: Rng): Answer {
  const format = request.response_format;
  const schema = format?.type === 'json_schema' ? format.json_schema.schema : undefined;
  const value = schema ? schemaValue(schema, rng) : freeformJsonObject(rng);
  let pieces = textPieces(JSON.stringify(value));
  // A cap can end the JSON mid-value, as on the real service.
  const capped = pieces.length > budget;
  if (capped) pieces = pieces.slice(0, budget);
  let text = pieces.join('');
  const at = firstStopIndex(text, stopList(request));
  if (at >= 0) {
    // JSON pieces can split one pretoken in several tokens: re-tokenize the kept text whole.
    text = text.slice(0, at);
    pieces = textPieces(text);
  }
  return {
    segments: [{ kind: 'content', pieces, toolIndex: -1 }],
    content: text,
    toolCalls: null,
    finishReason: capped && at < 0 ? 'length' : 'stop',
  };
}

function planProse(request: ChatCompletionRequest, model: ModelSpec, budget: number, rng: Rng): Answer {
  const wanted = answerLength(rng.fork('answer-length'), model.typicalOutputTokens);
  const capped = wanted > budget;
  const generated = generateTokenPieces(rng.fork('answer'), Math.max(0, Math.min(wanted, budget)));
  const cut = cutPiecesAtStop(generated, stopList(request));
  return {
    segments: [{ kind: 'content', pieces: cut.pieces, toolIndex: -1 }],
    content: cut.pieces.join(''),
    toolCalls: null,
    finishReason: capped && !cut.stopped ? 'length' : 'stop',
  };
}

function planAnswer(request: ChatCompletionRequest, model: ModelSpec, budget: number, rng: Rng): Answer {
  if (budget <= 0) return { segments: [], content: '', toolCalls: null, finishReason: 'length' };
  const tools = selectToolCalls(request);
  if (tools.length > 0) return planToolCalls(tools, budget, rng.fork('tools'));
  const format = request.response_format?.type;
  if (format === 'json_schema' || format === 'json_object') return planJson(request, budget, rng.fork('json'));
  return planProse(request, model, budget, rng.fork('prose'));
}

/**
 * `reasoning_format: raw`: the reasoning goes inside the content as `<think>...</think>` followed by the
 * answer, all streamed as content. Re-tokenized as one text so the count stays exact at the joins. The
 * answer was planned without room for the tags; cutting the whole at `cap` keeps "finish_reason length"
 * meaning "exactly cap tokens were generated".
 */
function rawReasoningAnswer(
  reasoning: string,
  answer: Answer,
  cap: number,
): { answer: Answer; reasoningTokens: number } {
  const think = `${THINK_OPEN}${reasoning}${THINK_CLOSE}`;
  const body = answer.content ?? '';
  let pieces = textPieces(body.length > 0 ? `${think}\n\n${body}` : think);
  let finishReason = answer.finishReason;
  if (pieces.length > cap) {
    pieces = pieces.slice(0, cap);
    finishReason = 'length';
  }
  let reasoningTokens = 0;
  for (let length = 0; reasoningTokens < pieces.length && length < think.length; reasoningTokens++)
    length += pieces[reasoningTokens]!.length;
  return {
    answer: {
      segments: [{ kind: 'content', pieces, toolIndex: -1 }],
      content: pieces.join(''),
      toolCalls: null,
      finishReason,
    },
    reasoningTokens,
  };
}

function toPlannedTokens(segments: readonly Segment[], request: ChatCompletionRequest, rng: Rng): PlannedToken[] {
  const logprobs = request.logprobs === true;
  const topCount = logprobs ? (request.top_logprobs ?? 0) : 0;
  const greedy = request.temperature === 0;
  // Forked whether or not alternatives are asked, so the chosen tokens' draws are the same either way.
  const rngs = { chosen: rng, alternatives: rng.fork('top_logprobs') };
  const tokens: PlannedToken[] = [];
  for (const segment of segments) {
    for (const text of segment.pieces) {
      if (!logprobs) {
        tokens.push({ kind: segment.kind, text, toolIndex: segment.toolIndex, logprob: 0, top: NO_TOP });
        continue;
      }
      const { logprob, top } = tokenLogprobs(rngs, text, topCount, greedy);
      tokens.push({ kind: segment.kind, text, toolIndex: segment.toolIndex, logprob, top });
    }
  }
  return tokens;
}

/**
 * Pure and deterministic for a given request with a seed. `fallbackSeed` is used when the request has
 * no `seed` (the server passes a per-request counter so unseeded outputs vary).
 */
export function planCompletion(request: ChatCompletionRequest, model: ModelSpec, fallbackSeed: number): CompletionPlan {
  const { promptTokens, imageTokens } = countPromptTokens(request);
  const rng = createRng(planSeed(request, model, fallbackSeed));
  const contextLeft = Math.max(0, model.limits.maxContextLength - promptTokens);
  const cap = Math.min(request.max_completion_tokens ?? Infinity, model.limits.maxCompletionTokens, contextLeft);

  let reasoningPieces: string[] = [];
  let reasoningCapped = false;
  if (model.reasoning) {
    const wanted = reasoningLength(rng.fork('reasoning-length'), model.reasoning, request.reasoning_effort);
    reasoningCapped = wanted > cap;
    reasoningPieces = generateTokenPieces(rng.fork('reasoning'), Math.min(wanted, cap));
  }
  const format = model.reasoning ? (request.reasoning_format ?? 'parsed') : null;
  let answer: Answer = reasoningCapped
    ? { segments: [], content: '', toolCalls: null, finishReason: 'length' }
    : planAnswer(request, model, cap - reasoningPieces.length, rng);

  let reasoningTokens = reasoningPieces.length;
  let reasoning: string | null = null;
  let segments: Segment[];
  if (format === 'raw' && answer.toolCalls === null) {
    // With tool calls the content must stay null, so raw reasoning is returned as parsed instead.
    const raw = rawReasoningAnswer(reasoningPieces.join(''), answer, cap);
    answer = raw.answer;
    reasoningTokens = raw.reasoningTokens;
    segments = answer.segments;
  } else if (format === 'hidden') {
    // Still generated (paced and counted), never shown.
    segments = [{ kind: 'reasoning', pieces: reasoningPieces.map(() => ''), toolIndex: -1 }, ...answer.segments];
  } else {
    if (format !== null) reasoning = reasoningPieces.join('');
    segments = [{ kind: 'reasoning', pieces: reasoningPieces, toolIndex: -1 }, ...answer.segments];
  }

  const logprobs = request.logprobs === true;
  return {
    tokens: toPlannedTokens(segments, request, rng.fork('logprobs')),
    reasoningTokens,
    content: answer.content,
    reasoning,
    toolCalls: answer.toolCalls,
    finishReason: answer.finishReason,
    promptTokens,
    imageTokens,
    logprobs,
    topLogprobs: logprobs ? (request.top_logprobs ?? 0) : 0,
  };
}
