/**
 * Resolves `models:` selectors against the target before anything else is sent, once per run (every worker
 * thread and every step of a capacity search then runs the same groups): `all` from GET /v1/models,
 * `{ capability }` from the public catalog, `{ endpoints_of }` from the management API. Each distinct
 * selector is asked once. The ids are sorted, so every shard of a run (each resolving on its own) makes the
 * same groups. A selector that selects nothing stops the run (exit 3), naming the selector and the target.
 */
import { InferbenchError, isInferbenchError } from '../errors.js';
import { listManagedEndpoints } from '../client/management-endpoints.js';
import {
  catalogCapabilities,
  deprecatedModels,
  fetchPublicCatalog,
  publicCatalogPath,
} from '../client/public-catalog.js';
import type { TargetRequest } from '../client/target-get.js';
import { listTargetModels } from '../client/target-models.js';
import { formatModelSelector, modelSelectorSource, withSelectedModels } from '../profile/sections/models.js';
import type { ModelSelector, ResolvedProfile } from '../profile/resolved-profile.js';
import type { ApiKind } from '../protocol/apis.js';
import type { PublicModelCapability } from '../protocol/models.js';

export interface SelectorAccess {
  /** The target (base URL without /v1), the run's headers, TLS and proxy; never a key. */
  readonly request: TargetRequest;
  /** Sent to GET /v1/models only; never printed. */
  readonly apiKey: string | null;
  /** The management key, asked only for `endpoints_of` (throws when it is not set); never printed. */
  managementKey(): string;
}

export interface SelectedModels {
  /** The profile with every selector scenario's models set (unchanged when it has no selector). */
  readonly profile: ResolvedProfile;
  /** What each selector selected, for the run's first lines: "models: all -> a, b (GET /v1/models)". */
  readonly notes: string[];
}

/** `profile` with its selectors resolved; throws TARGET_UNREACHABLE, TARGET_ERROR or RUN_FAILED (nothing selected). */
export async function resolveModelSelectors(profile: ResolvedProfile, access: SelectorAccess): Promise<SelectedModels> {
  // Each selector with the API of the first scenario that names it: `all` lists the models with that API's key
  // header (Anthropic's x-api-key for messages).
  const selectors = new Map<string, { selector: ModelSelector; api: ApiKind }>();
  for (const scenario of profile.scenarios) {
    if (scenario.modelSelector === undefined || scenario.models.length > 0) continue;
    const text = formatModelSelector(scenario.modelSelector);
    if (!selectors.has(text)) selectors.set(text, { selector: scenario.modelSelector, api: scenario.api ?? 'chat' });
  }
  if (selectors.size === 0) return { profile, notes: [] };
  const selected = new Map<string, string[]>();
  const notes: string[] = [];
  let catalog: Promise<PublicModels> | null = null;
  const capabilities = () => {
    catalog ??= fetchPublicCatalog(access.request, 'default').then((body) => ({
      capabilities: catalogCapabilities(body),
      deprecated: deprecatedModels(body),
    }));
    return catalog;
  };
  for (const [text, { selector, api }] of selectors) {
    const { ids, skipped } = await selectedBy(selector, api, access, capabilities).catch((error: unknown) => {
      throw naming(error, text, access.request.baseUrl);
    });
    if (ids.length === 0) throw nothingSelected(selector, access.request.baseUrl, skipped);
    const sorted = [...new Set(ids)].sort();
    selected.set(text, sorted);
    const left = skipped.length > 0 ? `; left out: ${skipped.join(', ')}` : '';
    notes.push(`models: ${text} -> ${sorted.join(', ')} (${modelSelectorSource(selector)}${left})`);
  }
  return { profile: withSelectedModels(profile, (s) => selected.get(formatModelSelector(s)) ?? []), notes };
}

/** What the public catalog says of its models: their capabilities, and which are deprecated (no longer served). */
interface PublicModels {
  readonly capabilities: Map<string, Set<PublicModelCapability>>;
  readonly deprecated: Set<string>;
}

async function selectedBy(
  selector: ModelSelector,
  api: ApiKind,
  access: SelectorAccess,
  capabilities: () => Promise<PublicModels>,
): Promise<{ ids: string[]; skipped: string[] }> {
  switch (selector.kind) {
    case 'all':
      return { ids: await listTargetModels(access.request, access.apiKey, api), skipped: [] };
    case 'capability': {
      const { capabilities: models, deprecated } = await capabilities();
      if (models.size === 0)
        throw new InferbenchError(
          'TARGET_ERROR',
          `GET ${access.request.baseUrl}${publicCatalogPath('default')} lists no model with capabilities: not a public catalog of the spec`,
          { hint: 'this target cannot select by capability: list the model ids in the profile' },
        );
      const matching = [...models].filter(([, has]) => selector.capabilities.every((c) => has.has(c)));
      const ids = matching.flatMap(([id]) => (deprecated.has(id) ? [] : [id]));
      const skipped = matching.flatMap(([id]) => (deprecated.has(id) ? [`${id} (deprecated)`] : []));
      return { ids, skipped };
    }
    case 'endpoints_of':
      return listManagedEndpoints(access.request, selector.org, access.managementKey());
  }
}

/** The same error, its message saying which selector asked. */
function naming(error: unknown, selector: string, target: string): unknown {
  if (!isInferbenchError(error) || error.code === 'BAD_USAGE') return error;
  return new InferbenchError(error.code, `models: ${selector} (target ${target}): ${error.message}`, {
    cause: error,
    hint: error.hint ?? undefined,
  });
}

function nothingSelected(selector: ModelSelector, target: string, skipped: readonly string[]): InferbenchError {
  const text = formatModelSelector(selector);
  const why = skipped.length > 0 ? ` (left out: ${skipped.join(', ')})` : '';
  return new InferbenchError(
    'RUN_FAILED',
    `models: ${text} selects no model of ${target} (${modelSelectorSource(selector)})${why}`,
    {
      hint:
        selector.kind === 'capability'
          ? `no model of the public catalog has ${selector.capabilities.join(' and ')}: run \`inferbench catalog --base-url ${target}\` to see what it has`
          : 'name the model ids in the profile instead',
    },
  );
}
