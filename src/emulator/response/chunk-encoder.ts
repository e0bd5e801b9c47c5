/**
 * Serialises a planned completion to the wire: stream events (`data: <compact JSON>\n\n`) and the
 * non-streaming `chat.completion` body. The constant head of every chunk of a response is serialised
 * once, so per-token work is one small JSON.stringify of the delta.
 */
import type {
  ChatCompletionResponse,
  LogprobEntry,
  ServiceTierUsed,
  TimeInfo,
  ToolCall,
  Usage,
} from '../../protocol/chat.js';
import type { CompletionPlan, PlannedToken } from '../completion-plan.js';

export interface ResponseIdentity {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  /** The `model` the request named (a model id or a dedicated endpoint id). */
  readonly model: string;
  readonly systemFingerprint: string;
  /** Present when the request asked for `service_tier: auto` (the tier it ran in); absent otherwise. */
  readonly serviceTierUsed: ServiceTierUsed | undefined;
  /** Whether the model reasons (reasoning logprobs go apart, version 2). */
  readonly reasoningModel: boolean;
}

export function usageOf(plan: CompletionPlan, cachedTokens: number): Usage {
  const completion = plan.tokens.length;
  const usage: Usage = {
    prompt_tokens: plan.promptTokens,
    completion_tokens: completion,
    total_tokens: plan.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: plan.reasoningTokens },
  };
  if (plan.imageTokens > 0) usage.image_tokens = plan.imageTokens;
  return usage;
}

function logprobEntry(token: PlannedToken): LogprobEntry {
  return {
    token: token.text,
    logprob: token.logprob,
    bytes: [...Buffer.from(token.text, 'utf8')],
    top_logprobs: token.top.map((t) => ({
      token: t.token,
      logprob: t.logprob,
      bytes: [...Buffer.from(t.token, 'utf8')],
    })),
  };
}

/** Encodes the stream of one response. Stateful: remembers which tool calls were announced. */
export class ChunkEncoder {
  readonly #head: string;
  readonly #announced = new Set<number>();

  constructor(
    readonly identity: ResponseIdentity,
    readonly plan: CompletionPlan,
  ) {
    const tier = identity.serviceTierUsed ? `"service_tier_used":${JSON.stringify(identity.serviceTierUsed)},` : '';
    this.#head =
      `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${identity.created},` +
      `"model":${JSON.stringify(identity.model)},"system_fingerprint":${JSON.stringify(identity.systemFingerprint)},${tier}` +
      `"choices":[{"index":0,"delta":`;
  }

  /** The first event: the role, with empty content. */
  roleChunk(): string {
    return `${this.#head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  }

  /** Events for tokens [from, to) of the plan, concatenated. Hidden reasoning tokens (empty text) send nothing. */
  tokens(from: number, to: number): string {
    let out = '';
    for (let i = from; i < to; i++) out += this.#token(this.plan.tokens[i]!);
    return out;
  }

  #token(token: PlannedToken): string {
    switch (token.kind) {
      case 'content': {
        const lp = this.plan.logprobs ? `,"logprobs":${JSON.stringify({ content: [logprobEntry(token)] })}` : '';
        return `${this.#head}{"content":${JSON.stringify(token.text)}},"finish_reason":null${lp}}]}\n\n`;
      }
      case 'reasoning': {
        if (token.text === '') return '';
        const key = this.identity.reasoningModel ? 'reasoning_logprobs' : 'logprobs';
        const lp = this.plan.logprobs ? `,"${key}":${JSON.stringify({ content: [logprobEntry(token)] })}` : '';
        return `${this.#head}{"reasoning":${JSON.stringify(token.text)}},"finish_reason":null${lp}}]}\n\n`;
      }
      case 'tool': {
        const announce = this.#announce(token.toolIndex);
        const delta = { tool_calls: [{ index: token.toolIndex, function: { arguments: token.text } }] };
        return `${announce}${this.#head}${JSON.stringify(delta)},"finish_reason":null}]}\n\n`;
      }
    }
  }

  /** The first fragment of a tool call: index, id, type, name and empty arguments (once per call). */
  #announce(index: number): string {
    if (this.#announced.has(index)) return '';
    this.#announced.add(index);
    const call = this.plan.toolCalls?.[index];
    if (!call) return '';
    const delta = {
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
    };
    return `${this.#head}${JSON.stringify(delta)},"finish_reason":null}]}\n\n`;
  }

  /** The last event: finish_reason, usage and time_info (after announcing any call that had no argument tokens). */
  finalChunk(cachedTokens: number, timeInfo: TimeInfo, doneMarker: boolean): string {
    let out = '';
    const calls = this.plan.toolCalls ?? [];
    for (let i = 0; i < calls.length; i++) out += this.#announce(i);
    const tail = JSON.stringify({ usage: usageOf(this.plan, cachedTokens), time_info: timeInfo }).slice(1);
    out += `${this.#head}{},"finish_reason":${JSON.stringify(this.plan.finishReason)}}],${tail}\n\n`;
    if (doneMarker) out += 'data: [DONE]\n\n';
    return out;
  }
}

/** The whole non-streaming response body. */
export function completionBody(
  identity: ResponseIdentity,
  plan: CompletionPlan,
  cachedTokens: number,
  timeInfo: TimeInfo,
): ChatCompletionResponse {
  const toolCalls: ToolCall[] | null = plan.toolCalls
    ? plan.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { ...c.function } }))
    : null;
  const contentTokens = plan.tokens.filter(
    (t) => t.kind === 'content' || (t.kind === 'reasoning' && !identity.reasoningModel),
  );
  const reasoningTokens = plan.tokens.filter((t) => t.kind === 'reasoning' && t.text !== '');
  const body: ChatCompletionResponse = {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    system_fingerprint: identity.systemFingerprint,
    choices: [
      {
        index: 0,
        finish_reason: plan.finishReason,
        message: {
          role: 'assistant',
          content: plan.content,
          tool_calls: toolCalls,
          ...(plan.reasoning !== null ? { reasoning: plan.reasoning } : {}),
        },
        logprobs: plan.logprobs ? { content: contentTokens.map(logprobEntry) } : null,
        ...(identity.reasoningModel
          ? { reasoning_logprobs: plan.logprobs ? { content: reasoningTokens.map(logprobEntry) } : null }
          : {}),
      },
    ],
    usage: usageOf(plan, cachedTokens),
    time_info: timeInfo,
  };
  if (identity.serviceTierUsed) body.service_tier_used = identity.serviceTierUsed;
  return body;
}
