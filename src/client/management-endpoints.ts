/**
 * The dedicated endpoints an organization manages: GET {base}/management/v1/orgs/{org}/endpoints with
 * `Authorization: Bearer <management key>`, for `models: { endpoints_of: ORG }`. The key is scrubbed from
 * every message. The spec's managed endpoint has no state; a listing that carries one anyway (`state` or
 * `status`) keeps only the endpoints that can take requests, and says which it left out.
 */
import { InferbenchError } from '../errors.js';
import { isObject } from './json-shape.js';
import { createScrubber } from './scrub-secret.js';
import { getFromTarget, parseTargetJson, type TargetRequest, targetErrorAnswer } from './target-get.js';

/** States (lower case) of an endpoint that serves requests; any other stated state is left out. */
const SERVING_STATES = new Set(['ready', 'running', 'active', 'available', 'serving', 'healthy', 'up', 'online']);

export interface ManagedEndpoints {
  /** Endpoint ids usable as the `model` of a request, in the listing's order. */
  readonly ids: string[];
  /** Endpoints listed with a state that takes no requests: "ep-1 (stopped)". */
  readonly skipped: string[];
}

/** The org's endpoints that take requests; TARGET_UNREACHABLE or TARGET_ERROR (naming the URL and status) otherwise. */
export async function listManagedEndpoints(
  request: TargetRequest,
  org: string,
  managementKey: string,
): Promise<ManagedEndpoints> {
  const path = `/management/v1/orgs/${encodeURIComponent(org)}/endpoints`;
  const url = `${request.baseUrl.replace(/\/+$/, '')}${path}`;
  const scrub = createScrubber(managementKey);
  const withKey = { ...request, headers: { ...request.headers, authorization: `Bearer ${managementKey}` } };
  const { status, body } = await getFromTarget(withKey, path, scrub);
  if (status !== 200) throw targetErrorAnswer(url, status, body, managementHint(status), scrub);
  const parsed = parseTargetJson(body, url, scrub);
  const endpoints = isObject(parsed) ? parsed['endpoints'] : null;
  if (!Array.isArray(endpoints))
    throw new InferbenchError('TARGET_ERROR', `GET ${url} answered JSON without an "endpoints" list`, {
      hint: 'check the base URL: it should be the service root (without /v1)',
    });
  return servingEndpoints(endpoints);
}

/** The ids of the endpoints that take requests, and those left out for their state. */
export function servingEndpoints(endpoints: readonly unknown[]): ManagedEndpoints {
  const ids: string[] = [];
  const skipped: string[] = [];
  for (const endpoint of endpoints) {
    if (!isObject(endpoint) || typeof endpoint['endpoint_id'] !== 'string') continue;
    const state = endpoint['state'] ?? endpoint['status'];
    if (typeof state === 'string' && !SERVING_STATES.has(state.toLowerCase()))
      skipped.push(`${endpoint['endpoint_id']} (${state})`);
    else ids.push(endpoint['endpoint_id']);
  }
  return { ids, skipped };
}

function managementHint(status: number): string {
  if (status === 401 || status === 403)
    return 'check the management key in the environment variable of target.management_key_env (default INFERENCE_MANAGEMENT_KEY): a management key, not an API key';
  if (status === 404)
    return 'check the organization name (the management name, not the org id), or the target serves no management API';
  return 'check the base URL: it should be the service root (without /v1)';
}
