/**
 * A scenario's `api:` (default `chat`): which inference API its requests speak (protocol/apis.ts). Here:
 * the schema,
 * the workload features each API refuses (a feature that cannot be expressed in that API's request is a
 * profile problem at the field that asks for it, never a request silently sent without it), and the
 * resolution (`api` is resolved only when not chat, so profiles without it resolve, hash and record as
 * before).
 *
 * To add an API: add it to API_KINDS (protocol/apis.ts) and its row to REFUSED below; the compiler then
 * asks for its path, its body builder (workload/apis/) and its response reader (client/apis/).
 */
import { z } from 'zod';
import { API_KINDS, type ApiKind } from '../../protocol/apis.js';
import { CHAT_REQUEST_PARAMETERS } from '../../protocol/chat.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';

// ---- schema

function unknownApiMessage(value: unknown): string {
  return `"${String(value)}" is not an api; expected one of ${API_KINDS.join(', ')}`;
}

export const apiSchema = z.enum(API_KINDS, { error: (issue) => unknownApiMessage(issue.input) }).meta({
  description:
    'The inference API the requests speak: chat (POST /v1/chat/completions, the default), completions (POST /v1/completions, the prompt as one text), responses (POST /v1/responses, the messages as input), embeddings (POST /v1/embeddings, inputs_per_request prompts per request) or messages (POST /v1/messages of Anthropic, the key sent as x-api-key). See docs/apis.md.',
});

/** APIs whose request carries several prompts (`inputs_per_request`); every other API sends one. */
const BATCHED_APIS: readonly ApiKind[] = ['embeddings'];

export const inputsPerRequestSchema = z
  .number()
  .int({ error: 'expected a whole number of inputs (>= 1)' })
  .min(1, { error: 'expected a whole number of inputs (>= 1)' })
  .meta({
    description:
      "api: embeddings only: prompts per request (the batch size), each of the scenario's prompt length; default 1 (input is one string), more sends input as an array.",
  });

// ---- checks

/** A workload feature an API cannot carry: where the profile asks for it, and why it is refused. */
interface RefusedFeature {
  /** The key of the merged scenario fields, then the path under it (empty: the key itself). */
  readonly key: string;
  readonly under: readonly string[];
  readonly why: string;
}

const COMPLETIONS_PROMPT = 'a completions prompt is one text with no roles';
const MESSAGES_THINKING = 'set request_extra.thinking ({type: enabled, budget_tokens: N})';

/** Chat request fields the Responses API does not have. */
const RESPONSES_ABSENT = ['frequency_penalty', 'presence_penalty', 'logit_bias', 'stop', 'seed', 'prediction'] as const;

const EMBEDDINGS_GENERATES_NOTHING = 'the embeddings API generates no text';

/** Request fields an embeddings request carries: `user`, and `stream` only when false. */
const EMBEDDINGS_REQUEST_FIELDS: ReadonlySet<string> = new Set(['user', 'stream']);

/**
 * Embeddings send the prompts' text as `input` and generate nothing: every chat request field but `user`
 * (and `stream: false`) is a generation, tool or cache field the API has no place for.
 */
const EMBEDDINGS_REFUSED: readonly RefusedFeature[] = [
  { key: 'prompt', under: ['system'], why: 'an embeddings input is text with no roles: put the text in the dataset' },
  { key: 'prompt', under: ['images'], why: 'the embeddings API takes text inputs only' },
  { key: 'prompt', under: ['output_tokens'], why: `${EMBEDDINGS_GENERATES_NOTHING}: it has no max tokens` },
  { key: 'prompt', under: ['prefixes'], why: 'the embeddings API has no prompt_cache_key: use shared_prefix_tokens' },
  { key: 'session', under: [], why: `${EMBEDDINGS_GENERATES_NOTHING}: a session needs its answers` },
  { key: 'tool_loop', under: [], why: `${EMBEDDINGS_GENERATES_NOTHING}: tool loops need api: chat` },
  { key: 'reasoning_efforts', under: [], why: `${EMBEDDINGS_GENERATES_NOTHING}: it has no reasoning_effort` },
  { key: 'tiers', under: [], why: 'the embeddings API has no service_tier' },
  { key: 'request', under: ['stream'], why: 'the embeddings API is not streamed: stream must be false or omitted' },
  { key: 'request', under: ['stream_options'], why: 'the embeddings API is not streamed' },
  ...CHAT_REQUEST_PARAMETERS.filter((field) => !EMBEDDINGS_REQUEST_FIELDS.has(field)).map((field) => ({
    key: 'request',
    under: [field],
    why: `${EMBEDDINGS_GENERATES_NOTHING}: its body is { model, input, encoding_format, dimensions, user } (dimensions in request_extra)`,
  })),
];

/**
 * What each API refuses. Chat carries every feature. Completions sends the user message's text as
 * `prompt`: no roles (so no system prompt, no multi-turn sessions or tool loops: their later turns are
 * messages with roles, and flattening them into one text would be a workload of our own making, not the
 * conversation the profile describes), no images, no tools, no response_format, no reasoning_effort; its
 * `logprobs` is a count, not chat's boolean (send it in request_extra). Responses carries roles, images,
 * tools, JSON-schema formats and reasoning effort (workload/apis/responses-body.ts) but has no penalties,
 * logit_bias, stop, seed, prediction or logprobs flag. Its sessions and tool loops send the whole
 * history as input items, as chat sends its messages. Messages (Anthropic) carries system prompts,
 * images and tools in its own shapes (workload/apis/messages-body.ts) but none of OpenAI's sampling
 * extras (seed, penalties, logprobs), response_format, reasoning_effort or service tiers.
 */
const REFUSED = {
  chat: [],
  completions: [
    { key: 'prompt', under: ['system'], why: `${COMPLETIONS_PROMPT}: put the text in the dataset, or use api: chat` },
    { key: 'prompt', under: ['images'], why: 'the completions API takes no images: use api: chat' },
    { key: 'session', under: [], why: `${COMPLETIONS_PROMPT}: multi-turn sessions need api: chat` },
    { key: 'tool_loop', under: [], why: 'the completions API has no tools: tool loops need api: chat' },
    { key: 'reasoning_efforts', under: [], why: 'the completions API has no reasoning_effort' },
    { key: 'request', under: ['tools'], why: 'the completions API has no tools' },
    { key: 'request', under: ['tool_choice'], why: 'the completions API has no tools' },
    { key: 'request', under: ['parallel_tool_calls'], why: 'the completions API has no tools' },
    {
      key: 'request',
      under: ['response_format'],
      why: 'the completions API has no response_format (answers cannot be checked against a schema)',
    },
    { key: 'request', under: ['reasoning_effort'], why: 'the completions API has no reasoning_effort' },
    { key: 'request', under: ['prediction'], why: 'the completions API has no prediction' },
    {
      key: 'request',
      under: ['logprobs'],
      why: "the completions API's logprobs is a count, not chat's boolean: set request_extra.logprobs",
    },
    {
      key: 'request',
      under: ['top_logprobs'],
      why: 'the completions API has no top_logprobs: set request_extra.logprobs',
    },
  ],
  responses: [
    ...RESPONSES_ABSENT.map((field) => ({
      key: 'request',
      under: [field],
      why: `the Responses API has no ${field}: use api: chat, or request_extra for a server that takes it`,
    })),
    {
      key: 'request',
      under: ['logprobs'],
      why: 'the Responses API has no logprobs flag: set top_logprobs and request_extra.include: [message.output_text.logprobs]',
    },
    {
      key: 'request',
      under: ['stream_options'],
      why: "a Responses stream always carries usage (in response.completed); chat's stream_options is not its own",
    },
  ],
  embeddings: EMBEDDINGS_REFUSED,
  messages: [
    {
      key: 'tiers',
      under: [],
      why: "OpenAI's service tiers (flex, priority...) are not Anthropic's service_tier (auto, standard_only): set request_extra.service_tier",
    },
    { key: 'reasoning_efforts', under: [], why: `Anthropic has no reasoning_effort: ${MESSAGES_THINKING}` },
    { key: 'request', under: ['reasoning_effort'], why: `Anthropic has no reasoning_effort: ${MESSAGES_THINKING}` },
    {
      key: 'request',
      under: ['response_format'],
      why: 'the Messages API has no response_format (answers cannot be checked against a schema)',
    },
    { key: 'request', under: ['prediction'], why: 'the Messages API has no prediction' },
    { key: 'request', under: ['logprobs'], why: 'the Messages API returns no logprobs' },
    { key: 'request', under: ['top_logprobs'], why: 'the Messages API returns no logprobs' },
    { key: 'request', under: ['seed'], why: 'the Messages API has no seed' },
    { key: 'request', under: ['frequency_penalty'], why: 'the Messages API has no frequency_penalty' },
    { key: 'request', under: ['presence_penalty'], why: 'the Messages API has no presence_penalty' },
    { key: 'request', under: ['logit_bias'], why: 'the Messages API has no logit_bias' },
    {
      key: 'request',
      under: ['prompt_cache_key'],
      why: 'Anthropic caches prompts at cache_control breakpoints, not by a key',
    },
    {
      key: 'request',
      under: ['stream_options'],
      why: 'a Messages stream always carries usage; Anthropic has no stream_options',
    },
  ],
} as const satisfies Record<ApiKind, readonly RefusedFeature[]>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The feature's value in the merged fields, undefined when the profile does not ask for it. */
function featureValue(fields: Readonly<Record<string, unknown>>, feature: RefusedFeature): unknown {
  let value: unknown = fields[feature.key];
  for (const part of feature.under) value = isRecord(value) ? value[part] : undefined;
  return value;
}

/**
 * The features of one set of merged fields (a scenario's, or a mix class's over its scenario's) that its
 * `api` cannot carry, each at the field that asks for it. An unknown `api` is the schema's to report.
 */
export function checkApiFeatures(
  fields: Readonly<Record<string, unknown>>,
  pathOf: (key: string, ...rest: (string | number)[]) => IssuePath,
): ProfileIssue[] {
  const api = fields.api;
  if (typeof api !== 'string' || !(API_KINDS as readonly string[]).includes(api)) return [];
  const issues: ProfileIssue[] = [];
  for (const feature of REFUSED[api as ApiKind] as readonly RefusedFeature[]) {
    const value = featureValue(fields, feature);
    // null means "none" wherever the schema allows it (prompt.system: null).
    if (value === undefined || value === null || value === false) continue;
    issues.push({
      path: pathOf(feature.key, ...feature.under),
      atKey: true,
      message: `api: ${api}: ${feature.why}`,
    });
  }
  return issues;
}

/** `inputs_per_request` (more than one) asks for an API that carries several prompts per request. */
export function checkInputsPerRequest(
  fields: Readonly<Record<string, unknown>>,
  pathOf: (key: string, ...rest: (string | number)[]) => IssuePath,
): ProfileIssue[] {
  const inputs = fields.inputs_per_request;
  if (typeof inputs !== 'number' || inputs <= 1) return [];
  const api = typeof fields.api === 'string' ? fields.api : 'chat';
  const load = fields.load;
  if (isRecord(load) && load.mode === 'trace')
    return [
      {
        path: pathOf('inputs_per_request'),
        atKey: true,
        message: 'a trace replays one request per record: inputs_per_request needs another load mode',
      },
    ];
  if ((BATCHED_APIS as readonly string[]).includes(api)) return [];
  return [
    {
      path: pathOf('inputs_per_request'),
      atKey: true,
      message: `api: ${api} sends one prompt per request; inputs_per_request needs api: ${BATCHED_APIS.join(' or ')}`,
    },
  ];
}

// ---- resolve

/** `api` of a resolved scenario: only when not chat (chat is what every profile without it sends). */
export function resolveApi(api: ApiKind | undefined): { api?: ApiKind } {
  return api === undefined || api === 'chat' ? {} : { api };
}

/** `inputsPerRequest` of a resolved scenario: only when the profile sets more than one (hashes stay as they were). */
export function resolveInputsPerRequest(inputs: number | undefined): { inputsPerRequest?: number } {
  return inputs === undefined || inputs <= 1 ? {} : { inputsPerRequest: inputs };
}
