/**
 * Every model the target serves to this key (GET /v1/models), over a setup connection of its own, for
 * `models: all`: the same request and errors as the run's pre-flight (list-models.ts), before any client
 * of the run exists.
 */
import { listModelIds } from './list-models.js';
import { createScrubber } from './scrub-secret.js';
import { type TargetRequest, withTargetConnection } from './target-get.js';

/** The ids of GET {base}/v1/models with the API key (none: no Authorization); throws TARGET_UNREACHABLE or TARGET_ERROR. */
export function listTargetModels(request: TargetRequest, apiKey: string | null): Promise<string[]> {
  const headers = apiKey === null ? request.headers : { ...request.headers, authorization: `Bearer ${apiKey}` };
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
