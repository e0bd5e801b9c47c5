/**
 * The run's first request: GET /v1/models. A scenario without models runs the target's first one, and a
 * target that cannot be reached at all ends the run here (exit 3) rather than after a whole duration of
 * connect errors. A target that answers with an error (no models endpoint, a gateway's 404) is fine when
 * the profile names its models. The client tells the two apart by error code (TARGET_UNREACHABLE: no
 * HTTP answer; TARGET_ERROR: an answer, but not a model list).
 */
import { InferbenchError, isInferbenchError } from '../errors.js';
import type { ClientOptions, InferenceClient } from '../client/types.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import { formatModelSelector } from '../profile/sections/models.js';

export interface PreflightDeps {
  createClient(options: ClientOptions): InferenceClient;
  resolveGroupModels(profile: ResolvedProfile, firstModel: string): ResolvedProfile;
}

/** `profile` with every group's model resolved; throws TARGET_UNREACHABLE, TARGET_ERROR or RUN_FAILED. */
export async function resolveTargetModels(
  profile: ResolvedProfile,
  clientOptions: ClientOptions,
  deps: PreflightDeps,
): Promise<ResolvedProfile> {
  if (profile.scenarios.length === 0) return profile;
  const unresolved = profile.scenarios.find((s) => s.modelSelector !== undefined && s.models.length === 0);
  if (unresolved?.modelSelector !== undefined)
    throw new InferbenchError(
      'INTERNAL',
      `scenario ${unresolved.name}: models: ${formatModelSelector(unresolved.modelSelector)} was not resolved before the run`,
      { hint: 'resolve selectors with resolveModelSelectors (runner/model-selectors.ts) before running the profile' },
    );
  const needModels = profile.groups.some((group) => group.model === null);
  const client = deps.createClient(clientOptions);
  let ids: string[] = [];
  try {
    // Not cut by Ctrl-C (it is short and has its own timeouts): an interrupt here still ends in a run
    // folder with complete=false, like any other interrupt.
    ids = await client.listModels();
  } catch (error) {
    const answered = isInferbenchError(error) && error.code === 'TARGET_ERROR';
    if (!needModels && answered) return profile;
    if (isInferbenchError(error)) throw error;
    throw new InferbenchError(
      'TARGET_UNREACHABLE',
      `could not list the models of ${clientOptions.baseUrl} (GET /v1/models): ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
        hint: 'check that the target is running and the base URL is right, or name the models in the profile (scenarios[].models)',
      },
    );
  } finally {
    await client.close();
  }
  if (!needModels) return profile;
  const firstModel = ids[0];
  if (firstModel === undefined) {
    throw new InferbenchError(
      'RUN_FAILED',
      `${clientOptions.baseUrl} lists no models (GET /v1/models returned an empty list)`,
      {
        hint: 'name the models in the profile (scenarios[].models)',
      },
    );
  }
  return deps.resolveGroupModels(profile, firstModel);
}
