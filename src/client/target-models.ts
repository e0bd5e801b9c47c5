/**
 * Every model the target serves to this key (GET /v1/models), over a setup connection of its own, for
 * `models: all`: the same request and errors as the run's pre-flight (list-models.ts), before any client
 * of the run exists.
 */
import type { ApiKind } from '../protocol/apis.js';
import { apiHeadersOf, authSchemeOf, keyHeader } from './apis/api-auth.js';
import { listModelIds } from './list-models.js';
import { createScrubber } from './scrub-secret.js';
import { type TargetRequest, withTargetConnection } from './target-get.js';

/**
 * The ids of GET {base}/v1/models with the API key as `api` sends it (a bearer token, or Anthropic's x-api-key
 * and anthropic-version; no key: no key header); throws TARGET_UNREACHABLE or TARGET_ERROR.
 */
export function listTargetModels(request: TargetRequest, apiKey: string | null, api: ApiKind): Promise<string[]> {
  const headers: Record<string, string> = { ...apiHeadersOf(api), ...request.headers };
  if (apiKey !== null) {
    const [name, value] = keyHeader(apiKey, authSchemeOf(api));
    headers[name] = value;
  }
  return withTargetConnection({ ...request, headers }, (connection) =>
    listModelIds(
      connection.dispatcher,
      connection.pathPrefix,
      connection.headers,
      connection.timeouts,
      createScrubber(apiKey),
    ),
  );
}
