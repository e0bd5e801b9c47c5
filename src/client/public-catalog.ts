/**
 * The target's public catalog prices: GET {base}/public/v1/models (no key: the endpoint needs none, so the
 * key is never sent), each model's `pricing: { prompt, completion }` in USD per token. Used to cost a run
 * when the profile has no `pricing:` for a model. Best effort by design: any failure (no such endpoint, a
 * timeout, another shape) means "no pricing", never an error, since most OpenAI-compatible servers have
 * no catalog at all. Over one connection of its own, through the proxy and TLS settings of the run.
 */
import type { TlsSpec } from '../profile/resolved-profile.js';
import { createRoute } from './connection-route.js';
import { isObject } from './json-shape.js';
import { BodyCollector } from './list-models.js';
import { NO_PROXY_SETTINGS, proxyFor, type ProxySettings } from './proxy.js';
import { loadTlsOptions } from './tls-options.js';

export interface CatalogRequest {
  /** Base URL without /v1. */
  readonly baseUrl: string;
  /** The run's headers (integration header, target.headers); never an Authorization. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tls: TlsSpec | null;
  readonly proxy: ProxySettings | null;
  /** Give up after this long (default 10 s): a catalog is not worth holding a run for. */
  readonly timeoutMs?: number;
}

/** Model id -> USD per token as the catalog's strings. */
export type CatalogPrices = Map<string, { prompt: string; completion: string }>;

/** The catalog's prices, or null when the target serves none (any failure). Never throws. */
export async function fetchCatalogPrices(request: CatalogRequest): Promise<CatalogPrices | null> {
  const limitMs = request.timeoutMs ?? 10_000;
  let destroy: () => Promise<void> = async () => undefined;
  let collector: BodyCollector | null = null;
  try {
    const url = new URL(request.baseUrl);
    const route = createRoute({
      origin: url.origin,
      proxy: proxyFor(url.origin, request.proxy ?? NO_PROXY_SETTINGS),
      tls: loadTlsOptions(request.tls),
      connectMs: limitMs,
      clientOptions: { pipelining: 1 },
      wrap: (dispatcher) => dispatcher,
    });
    const slot = route.openSlot();
    destroy = () => slot.destroy();
    const timeouts = {
      connectMs: limitMs,
      headersMs: limitMs,
      firstTokenMs: limitMs,
      idleMs: limitMs,
      totalMs: limitMs,
    };
    collector = new BodyCollector(timeouts);
    // Settled either way below; a failure after we gave up must not surface as an unhandled rejection.
    collector.done.catch(() => undefined);
    collector.start();
    const headers = route.headers === null ? request.headers : { ...request.headers, ...route.headers };
    const path = `${route.pathOrigin}${url.pathname.replace(/\/+$/, '')}/public/v1/models`;
    slot.dispatcher.dispatch({ path, method: 'GET', headers }, collector);
    const { status, body } = await collector.done;
    return status === 200 ? catalogPrices(JSON.parse(body)) : null;
  } catch {
    return null;
  } finally {
    // Stops its timers when it did not settle (a no-op when it did).
    collector?.fail(new Error('catalog request ended'));
    await destroy().catch(() => undefined);
  }
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
