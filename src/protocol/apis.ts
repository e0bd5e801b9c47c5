/**
 * The inference APIs a scenario can speak (`api:` of a profile scenario) and the path each is POSTed to,
 * under the target's base URL. Which of them the harness has built is BUILT_APIS: a profile naming another
 * is refused (profile/sections/api.ts), and everything keyed by an API (workload/apis/, client/apis/) is a
 * registry over BuiltApi that the compiler checks, so adding an API to BUILT_APIS without its body builder
 * and its response reader is a compile error.
 */

/** Every value `api:` accepts in a profile's schema (documented in docs/apis.md). */
export const API_KINDS = ['chat', 'completions', 'responses', 'embeddings', 'messages'] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** The APIs built so far; the others are refused by the profile with "not built yet". */
export const BUILT_APIS = [
  'chat',
  'completions',
  'responses',
  'embeddings',
  'messages',
] as const satisfies readonly ApiKind[];
export type BuiltApi = (typeof BUILT_APIS)[number];

/** POST path of each API (OpenAI's and Anthropic's), appended to the base URL's own path. */
export const API_PATHS = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  messages: '/v1/messages',
} as const satisfies Record<ApiKind, string>;

export function isBuiltApi(api: ApiKind): api is BuiltApi {
  return (BUILT_APIS as readonly string[]).includes(api);
}
