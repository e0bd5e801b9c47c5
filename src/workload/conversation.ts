/**
 * Conversations: the requests of one multi-turn session (`session:`) and of the tool loop (`tool_loop:`),
 * built one after the other from the server's real previous answer, which the runner hands over as plain
 * data (this layer never sees a client record). Request 1 is the workload's request `index` as a single
 * request would be; each later user turn appends the previous answer and a new token-exact user message;
 * a tool round appends the answer with its tool calls and one seeded tool result per call.
 *
 * Deterministic for (scenario seed, group, index): turn counts, think times, user messages and tool results
 * come from seeded streams of their own, so the same profile sends the same user side in every run (the
 * answers are the server's). Every text source is built once with the workload, never per request.
 */
import type { ChatMessage, ToolCall } from '../protocol/chat.js';
import type {
  LengthDistribution,
  ResolvedGroup,
  ResolvedScenario,
  SessionSpec,
  ThinkTimeDistribution,
} from '../profile/resolved-profile.js';
import { exponential, lognormal } from '../util/distributions.js';
import type { Rng } from '../util/rng.js';
import { hashString } from '../util/rng.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer, Tokenizer } from '../util/tokenizer.js';
import { countTokensBounded } from '../util/bounded-tokens.js';
import type { ApiBodyBuilder } from './apis/api-bodies.js';
import type { RequestPlan } from './request-plan.js';
import type { UserTurn } from './session-turns.js';
import { requestRng, streamSeed } from './request-seed.js';
import { sampleLength } from './sample-length.js';
import type { SyntheticText } from './synthetic-text.js';
import { createSyntheticText, maxLength } from './synthetic-text.js';

/** A tool call of the previous answer (the client's ReceivedToolCall, as plain data). */
export interface AnswerToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** What the server answered to the previous request of the conversation. */
export interface PreviousAnswer {
  /** Answer content only (no reasoning, no tool-call arguments). */
  readonly content: string;
  readonly toolCalls: readonly AnswerToolCall[] | null;
  /** Tokens of the answer as the server counted them (usage, reasoning excluded); null: count `content`. */
  readonly outputTokens: number | null;
}

/** The next request of a conversation and the think time to wait before sending it. */
export interface ConversationStep {
  readonly plan: RequestPlan;
  readonly thinkMs: number;
}

export interface Conversation {
  readonly first: RequestPlan;
  /** The request that follows `answer`, or null when the conversation is over. */
  next(answer: PreviousAnswer): ConversationStep | null;
}

/** The conversation of workload request `index`. */
export type ConversationFactory = (index: number) => Conversation;

/** Whether a scenario's units are conversations rather than single requests. */
export function isConversational(scenario: ResolvedScenario): boolean {
  return scenario.session !== undefined || scenario.toolLoop !== undefined;
}

/** Draws one think time in ms, clamped to [0, max]. */
export function sampleThinkMs(spec: ThinkTimeDistribution, rng: Rng): number {
  switch (spec.dist) {
    case 'fixed':
      return spec.valueMs;
    case 'uniform':
      return spec.minMs + (spec.maxMs - spec.minMs) * rng.next();
    case 'exponential':
      return Math.min(spec.maxMs, exponential(rng, spec.meanMs));
    case 'lognormal':
      return spec.meanMs <= 0 ? 0 : Math.min(spec.maxMs, lognormal(rng, spec.meanMs, spec.stddevMs));
  }
}

/** Seed material shared by every conversation of a group: fixed for the workload's lifetime. */
interface ConversationSeeds {
  readonly session: number;
  readonly cacheKey: string;
  readonly toolResults: number;
}

/** Everything a conversation needs that is built once per workload. */
interface ConversationContext {
  readonly scenario: ResolvedScenario;
  readonly session: SessionSpec | null;
  readonly text: SyntheticText;
  readonly seeds: ConversationSeeds;
  readonly tokenizer: EncodingTokenizer;
  readonly inputs: ConversationInputs;
}

/** What a conversation is built on: the workload's single request, and a dataset's later user turns. */
export interface ConversationInputs {
  /** The workload's request `index` as a chat body: the conversation's first request. */
  readonly first: (index: number) => RequestPlan;
  /** With prompt.dataset: the later user turns of request `index`'s conversation; null: synthetic turns. */
  readonly laterTurns: ((index: number) => readonly UserTurn[]) | null;
  /** The scenario's API body, made from each turn's chat body (apis/api-bodies.ts); null: chat's, as built. */
  readonly apiBody: ApiBodyBuilder | null;
}

/**
 * The conversation factory of a group, or null when the scenario has neither `session` nor `tool_loop`.
 * `inputs.first` is the workload's single request `index` (its first turn).
 */
export function createConversations(
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  tokenizer: EncodingTokenizer,
  inputs: ConversationInputs,
): ConversationFactory | null {
  if (!isConversational(scenario)) return null;
  const session = scenario.session ?? null;
  const named = tokenizer === o200kTokenizer() ? null : tokenizer;
  // Seeded per group (its key holds the model, tier, class and effort), like the synthetic prompts.
  const groupLabels = [scenario.name, group.key];
  const longest = Math.max(session ? maxLength(session.userTokens) : 1, scenario.toolLoop?.resultTokens ?? 1);
  const context: ConversationContext = {
    scenario,
    session,
    text: createSyntheticText(streamSeed(scenario.seed, ...groupLabels, 'turn-text'), longest, named),
    seeds: {
      session: streamSeed(scenario.seed, ...groupLabels, 'session'),
      // One key per conversation (spec: prompt_cache_key groups related requests), stable across runs.
      cacheKey: `inferbench-${hashString(`${scenario.seed}\u0000${group.key}`).toString(16)}`,
      toolResults: streamSeed(scenario.seed, ...groupLabels, 'tool-results'),
    },
    tokenizer,
    inputs,
  };
  return (index) => startConversation(context, index);
}

/** A seed for one (turn, round, call) of conversation `index`'s tool results. */
function toolResultRng(base: number, index: number, turn: number, round: number, call: number): Rng {
  const mixed =
    (base ^ Math.imul(turn + 1, 0x85ebca6b) ^ Math.imul(round + 1, 0xc2b2ae35) ^ Math.imul(call + 1, 0x27d4eb2d)) >>> 0;
  return requestRng(mixed, index);
}

function withLabels(
  base: Readonly<Record<string, string>> | undefined,
  session: boolean,
  toolLoop: boolean,
  turn: number,
  round: number,
): Readonly<Record<string, string>> {
  const labels: Record<string, string> = { ...base };
  if (session) labels.turn = String(turn);
  if (toolLoop) labels.tool_round = String(round);
  return labels;
}

/** The assistant message that goes into the history: with its tool calls only when their results follow. */
function assistantMessage(answer: PreviousAnswer, withCalls: boolean): ChatMessage {
  if (!withCalls || answer.toolCalls === null) return { role: 'assistant', content: answer.content };
  const calls: ToolCall[] = answer.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return { role: 'assistant', content: answer.content === '' ? null : answer.content, tool_calls: calls };
}

/** Answers up to this many characters are counted (bounded, linear); longer ones are estimated. */
export const COUNTED_ANSWER_CHARS = 16_384;

/**
 * The tokens of an answer a server sent without usage, for the next turn's expectedInputTokens only: it
 * runs between turns on the completion path, so never a raw count of server text (quadratic in one long
 * pretoken, util/tokenizer.ts). A short answer is counted through util/bounded-tokens.ts (exact for
 * ordinary text, under a millisecond); a longer one is estimated at 4 characters a token.
 */
export function answerTokensEstimate(tokenizer: Tokenizer, content: string): number {
  return content.length <= COUNTED_ANSWER_CHARS
    ? countTokensBounded(tokenizer, content)
    : Math.ceil(content.length / 4);
}

/** A synthetic user turn of `length` tokens, token-exact. */
function syntheticTurn(text: SyntheticText, length: LengthDistribution, rng: Rng): UserTurn {
  const tokens = sampleLength(length, rng);
  return { text: text.text(rng, tokens, false), tokens };
}

function startConversation(context: ConversationContext, index: number): Conversation {
  const { scenario, session, seeds, text } = context;
  const firstPlan = context.inputs.first(index);
  const rng = requestRng(seeds.session, index);
  // A dataset conversation has as many turns as it has user turns, at most session.turns.
  const later = session ? (context.inputs.laterTurns?.(index) ?? null) : null;
  const drawn = session?.turns ? sampleLength(session.turns, rng) : Number.POSITIVE_INFINITY;
  // (turns is only omitted with a dataset: a profile check; without either a session has one turn.)
  const turns =
    session === null ? 1 : later === null ? (Number.isFinite(drawn) ? drawn : 1) : Math.min(drawn, 1 + later.length);
  const thinkRng = rng.fork('think');
  const userRng = rng.fork('user');
  const outputRng = rng.fork('output');
  const toolLoop = scenario.toolLoop ?? null;
  const baseBody = { ...firstPlan.body };
  if (scenario.request.prompt_cache_key === undefined) baseBody.prompt_cache_key = `${seeds.cacheKey}-${index}`;
  const history: ChatMessage[] = [...(firstPlan.body.messages as ChatMessage[])];
  let tokens = firstPlan.expectedInputTokens;
  let turn = 1;
  let round = 0;
  // output_tokens: dataset: each later turn's max_completion_tokens is the file's answer to it.
  let turnOutput: number | null = null;
  const plan = (): RequestPlan => {
    const body: Record<string, unknown> = { ...baseBody, messages: [...history] };
    const output = scenario.prompt.outputTokens;
    if (turnOutput !== null) body.max_completion_tokens = turnOutput;
    else if (output !== null && (turn > 1 || round > 0)) body.max_completion_tokens = sampleLength(output, outputRng);
    const apiBody = context.inputs.apiBody;
    return {
      ...(apiBody === null ? { body } : { body: apiBody(body), chatBody: body }),
      expectedInputTokens: tokens,
      labels: withLabels(firstPlan.labels, session !== null, toolLoop !== null, turn, round),
    };
  };
  return {
    first: plan(),
    next(answer) {
      const calls = answer.toolCalls;
      const loop = toolLoop !== null && calls !== null && calls.length > 0 && round < toolLoop.maxRounds;
      if (!loop && turn >= turns) return null;
      history.push(assistantMessage(answer, loop));
      tokens += answer.outputTokens ?? answerTokensEstimate(context.tokenizer, answer.content);
      if (loop) {
        round++;
        calls.forEach((call, i) => {
          const result = text.text(
            toolResultRng(seeds.toolResults, index, turn, round, i),
            toolLoop.resultTokens,
            false,
          );
          history.push({ role: 'tool', tool_call_id: call.id, content: result });
          tokens += toolLoop.resultTokens;
        });
        return { plan: plan(), thinkMs: 0 };
      }
      turn++;
      round = 0;
      const user =
        later === null ? syntheticTurn(text, (session as SessionSpec).userTokens, userRng) : later[turn - 2]!;
      history.push({ role: 'user', content: user.text });
      tokens += user.tokens;
      if (typeof user.answerTokens === 'number') turnOutput = Math.max(1, user.answerTokens);
      return { plan: plan(), thinkMs: sampleThinkMs((session as SessionSpec).thinkTime, thinkRng) };
    },
  };
}
