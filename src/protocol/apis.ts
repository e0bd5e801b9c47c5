/**
 * The inference APIs a scenario can speak (`api:` of a profile scenario) and the path each is POSTed to,
 * under the target's base URL. Everything keyed by an API (its refused features in profile/sections/api.ts,
 * its body builder in workload/apis/, its response reader and auth scheme in client/apis/) is a registry
 * over ApiKind that the compiler checks: an API added here without its rows does not compile.
 */

/** Every value `api:` accepts in a profile's schema (documented in docs/apis.md). */
export const API_KINDS = ['chat', 'completions', 'responses', 'embeddings', 'messages'] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** POST path of each API (OpenAI's and Anthropic's), appended to the base URL's own path. */
export const API_PATHS = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  messages: '/v1/messages',
} as const satisfies Record<ApiKind, string>;
