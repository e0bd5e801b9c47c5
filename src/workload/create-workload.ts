/**
 * What to send: the chat completion body of request number `index` of a group, built from the scenario's
 * prompt spec and request fields. Deterministic for (scenario seed, group, index): the same profile sends
 * the same requests in every run, whatever order they are built in.
 *
 * Token counts and token-exact prompt lengths are in the tokenizer the caller passes: the profile's
 * target.tokenizer as the runner (or validate) loaded it, else o200k_base. This layer never loads one.
 */
import { InferbenchError } from '../errors.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import { API_REQUESTS, type ApiRequests } from './apis/api-bodies.js';
import { groupScenario } from './group-scenario.js';
import type { DatasetCounts } from './dataset/dataset-source.js';
import { PROMPT_SOURCES, promptSourceKind } from './prompt-sources.js';
import type { PromptSource } from './prompt-sources.js';
import { prefixedPlan } from './prompt-prefixes.js';
import { requestRng, streamSeed } from './request-seed.js';
import { withImages } from './synthetic-image-parts.js';
import type { RequestPlan } from './request-plan.js';
import { sampleLength } from './sample-length.js';
import { traceRequests } from './trace-requests.js';
import { createConversations } from './conversation.js';
import type { ConversationFactory } from './conversation.js';

export type { RequestPlan } from './request-plan.js';

export interface Workload {
  next(index: number): RequestPlan;
  /** With `session` or `tool_loop`: conversation `index`, whose first request is next(index) (conversation.ts). */
  readonly conversation?: ConversationFactory;
  /** With prompt.dataset: what the dataset read, kept and dropped (validate prints it). */
  readonly dataset?: DatasetCounts;
  /** Warnings for summary.json harness.warnings, read when the run ends (a dataset's supply used up, large image bodies). */
  warnings?(): string[];
}

function datasetParts(source: PromptSource): Pick<Workload, 'dataset' | 'warnings'> {
  const warnings = source.warnings ? { warnings: () => source.warnings?.() ?? [] } : {};
  return source.dataset === undefined ? warnings : { dataset: source.dataset, ...warnings };
}

/**
 * Builds the workload of one group, its prompts sized and counted in `tokenizer`. Throws BAD_PROFILE for an
 * unreadable dataset or a tokenizer that synthetic prompts cannot be made exact in, INTERNAL for an
 * unresolved model.
 */
export function createWorkload(
  wholeScenario: ResolvedScenario,
  group: ResolvedGroup,
  tokenizer: EncodingTokenizer = o200kTokenizer(),
): Workload {
  // A mix class's prompt and request, a group's reasoning_effort (group-scenario.ts).
  const scenario = groupScenario(wholeScenario, group);
  if (group.model === null) {
    throw new InferbenchError('INTERNAL', `group ${group.key} has no model yet`, {
      hint: 'resolve models first with resolveGroupModels(profile, firstModel)',
    });
  }
  const model = group.model;
  // prompt.images: the scenario's images after each user message's text (synthetic-image-parts.ts).
  // load mode trace: each record's lengths (trace-requests.ts).
  const trace = traceRequests(scenario, group, tokenizer);
  const kindSource = trace?.source ?? PROMPT_SOURCES[promptSourceKind(scenario)](scenario, group, tokenizer);
  const source = withImages(kindSource, scenario);
  const lengthBase = streamSeed(scenario.seed, scenario.name, 'lengths');
  // Spec fields first, then the fields only some servers take: one object spread per request.
  const request = { ...scenario.request, ...scenario.requestExtra };
  const tier = group.tier;
  const outputTokens = scenario.prompt.outputTokens;
  // api: the body of another API than chat, made from the chat body (apis/api-bodies.ts).
  const apiRequests: ApiRequests = API_REQUESTS[scenario.api ?? 'chat'];
  const apiBody = apiRequests.body;
  /**
   * Request `index` as chat builds it (with inputs_per_request, prompt `index`); the API's body is made
   * from it (next, each turn of a conversation, and the batches of an API that carries several inputs).
   */
  const chatPlan = (index: number): RequestPlan => {
    const lengths = requestRng(lengthBase, index);
    const prompt = source.build(index, lengths);
    const body: Record<string, unknown> = { model, messages: prompt.messages, ...request };
    if (tier !== null) body.service_tier = tier;
    // prompt.dataset.output_tokens: dataset sets it per entry (dataset-source.ts).
    if (prompt.outputTokens !== undefined) body.max_completion_tokens = prompt.outputTokens;
    else if (outputTokens !== null) body.max_completion_tokens = sampleLength(outputTokens, lengths);
    if (trace !== null) body.max_completion_tokens = trace.outputTokens(index);
    // prompt.prefixes: the prefix's prompt_cache_key and `prefix` label (prompt-prefixes.ts).
    return prompt.prefix !== undefined
      ? prefixedPlan(body, prompt.expectedInputTokens, prompt.prefix)
      : { body, expectedInputTokens: prompt.expectedInputTokens };
  };
  const batch = batchPlans(apiRequests, scenario.inputsPerRequest ?? 1, chatPlan);
  const workload: Workload = {
    next(index) {
      if (batch !== null) return batch(index);
      const plan = chatPlan(index);
      return apiBody === null ? plan : { ...plan, body: apiBody(plan.body), chatBody: plan.body };
    },
    ...datasetParts(source),
  };
  // session / tool_loop: each unit is a conversation that starts with chatPlan(index), each turn in the api's body (conversation.ts).
  const conversation = createConversations(scenario, group, tokenizer, {
    first: chatPlan,
    laterTurns: source.laterTurns ? (index) => source.laterTurns!(index) : null,
    apiBody,
  });
  return conversation === null ? workload : { ...workload, conversation };
}

/**
 * An API that carries several prompts per request (api: embeddings): request `index` of `inputs` prompts is
 * prompts index x inputs ... index x inputs + inputs - 1, each built as one request's prompt is (its own
 * seeded length and text), so one input per request sends exactly the prompts it sent before; the
 * expected input tokens are their sum. null: a chat-shaped API (one prompt, no `inputs`).
 */
function batchPlans(
  api: ApiRequests,
  inputs: number,
  chatPlan: (index: number) => RequestPlan,
): ((index: number) => RequestPlan) | null {
  const batchBody = api.batchBody;
  if (batchBody === undefined) return null;
  return (index) => {
    if (inputs === 1) {
      const plan = chatPlan(index);
      return { ...plan, body: api.body === null ? plan.body : api.body(plan.body), inputs: 1 };
    }
    const plans: RequestPlan[] = [];
    let expectedInputTokens = 0;
    for (let k = 0; k < inputs; k++) {
      const plan = chatPlan(index * inputs + k);
      plans.push(plan);
      expectedInputTokens += plan.expectedInputTokens;
    }
    return { body: batchBody(plans.map((plan) => plan.body)), expectedInputTokens, inputs };
  };
}
