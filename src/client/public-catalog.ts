/**
 * The target's public catalog: GET {base}/public/v1/models[?format=router|hub] (no key: the endpoint needs
 * none, so the key is never sent), over one connection of its own through the proxy and TLS settings of the
 * run (target-get.ts). Read for three things: its prices (`pricing: { prompt, completion }`, USD per token),
 * which cost a run when the profile has no `pricing:` for a model, best effort (any failure means "no
 * pricing", since most OpenAI-compatible servers have no catalog); the capabilities of its models, for
 * `models: { capability }`; and the whole body, for `inferbench catalog --base-url`. The last two fail with
 * a clear error naming the URL and the status.
 */
import { InferbenchError } from '../errors.js';
import type { CatalogFormat, PublicModelCapability } from '../protocol/models.js';
import { PUBLIC_MODEL_CAPABILITIES } from '../protocol/models.js';
import { isObject } from './json-shape.js';
import { getFromTarget, parseTargetJson, type TargetRequest, targetErrorAnswer } from './target-get.js';

/** Base URL without /v1, the run's headers (never an Authorization), TLS and proxy. */
export type CatalogRequest = TargetRequest;

/** Model id -> USD per token as the catalog's strings. */
export type CatalogPrices = Map<string, { prompt: string; completion: string }>;

/** `/public/v1/models` with the `format` query parameter of the spec (none for the default format). */
export function publicCatalogPath(format: CatalogFormat): string {
  return format === 'default' ? '/public/v1/models' : `/public/v1/models?format=${format}`;
}

/** The catalog's prices, or null when the target serves none (any failure). Never throws. */
export async function fetchCatalogPrices(request: CatalogRequest): Promise<CatalogPrices | null> {
  try {
    const { status, body } = await getFromTarget(request, publicCatalogPath('default'));
    return status === 200 ? catalogPrices(JSON.parse(body)) : null;
  } catch {
    return null;
  }
}

/**
 * The public catalog in `format`, parsed; TARGET_UNREACHABLE when no answer came, TARGET_ERROR (naming the
 * URL and the status) for an error answer or one that is not a catalog (`{ data: [...] }`).
 */
export async function fetchPublicCatalog(request: CatalogRequest, format: CatalogFormat): Promise<unknown> {
  const path = publicCatalogPath(format);
  const url = `${request.baseUrl.replace(/\/+$/, '')}${path}`;
  const { status, body } = await getFromTarget(request, path);
  if (status !== 200)
    throw targetErrorAnswer(
      url,
      status,
      body,
      status === 404
        ? 'this target serves no public catalog there (most OpenAI-compatible servers have none); check the base URL: the service root, without /v1'
        : 'check the base URL: it should be the service root (without /v1)',
    );
  const parsed = parseTargetJson(body, url);
  if (!isObject(parsed) || !Array.isArray(parsed['data']))
    throw new InferbenchError('TARGET_ERROR', `GET ${url} answered JSON that is no model catalog (no "data" list)`, {
      hint: 'check the base URL: it should be the service root (without /v1)',
    });
  return parsed;
}

/**
 * Model id -> the capabilities the catalog says are true: the `capabilities` object of the default and hub
 * formats, or the router format's `supported_features` (and `input_modalities` with "image" for vision).
 * A capability the catalog does not state is not there; a model with neither field is left out (a plain
 * model list says nothing about capabilities).
 */
export function catalogCapabilities(body: unknown): Map<string, Set<PublicModelCapability>> {
  const out = new Map<string, Set<PublicModelCapability>>();
  const data = isObject(body) ? body['data'] : null;
  if (!Array.isArray(data)) return out;
  const known = new Set<string>(PUBLIC_MODEL_CAPABILITIES);
  for (const model of data) {
    if (!isObject(model) || typeof model['id'] !== 'string') continue;
    const capabilities = model['capabilities'];
    const features = model['supported_features'];
    // Says nothing about capabilities (a plain /v1/models list): not "none of them".
    if (!isObject(capabilities) && !Array.isArray(features)) continue;
    const has = new Set<PublicModelCapability>();
    if (isObject(capabilities))
      for (const [name, on] of Object.entries(capabilities))
        if (on === true && known.has(name)) has.add(name as PublicModelCapability);
    if (Array.isArray(features))
      for (const name of features)
        if (typeof name === 'string' && known.has(name)) has.add(name as PublicModelCapability);
    const modalities = model['input_modalities'];
    if (Array.isArray(modalities) && modalities.includes('image')) has.add('vision');
    out.set(model['id'], has);
  }
  return out;
}

/**
 * The ids the catalog marks `deprecated: true`: the default format keeps them listed, but a request to one
 * is the spec's 404 (model not found), so a selector must not pick them.
 */
export function deprecatedModels(body: unknown): Set<string> {
  const data = isObject(body) ? body['data'] : null;
  const out = new Set<string>();
  if (Array.isArray(data))
    for (const model of data)
      if (isObject(model) && typeof model['id'] === 'string' && model['deprecated'] === true) out.add(model['id']);
  return out;
}

/** The prices of a catalog body `{ data: [{ id, pricing: { prompt, completion } }] }`; null when none. */
export function catalogPrices(body: unknown): CatalogPrices | null {
  const data = isObject(body) ? body['data'] : null;
  if (!Array.isArray(data)) return null;
  const prices: CatalogPrices = new Map();
  for (const model of data) {
    if (!isObject(model) || typeof model['id'] !== 'string') continue;
    const pricing = model['pricing'];
    if (!isObject(pricing)) continue;
    const prompt = usdText(pricing['prompt']);
    const completion = usdText(pricing['completion']);
    if (prompt !== null && completion !== null) prices.set(model['id'], { prompt, completion });
  }
  return prices.size > 0 ? prices : null;
}

function usdText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}
