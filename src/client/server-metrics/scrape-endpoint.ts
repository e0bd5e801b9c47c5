/**
 * One scrape of one Prometheus endpoint: a GET over the endpoint's own keep-alive connection (never the
 * run's pool), given up after its timeout on the run's clock, its body read up to a byte limit and no
 * further (the scraper parses it: exposition.ts). Never throws: every outcome is a ScrapeOutcome, a failure
 * classified by kind with a message that carries no key.
 */
import { Client } from 'undici';
import type { Clock } from '../../util/clock.js';
import { createScrubber } from '../scrub-secret.js';

/** Why a scrape failed. */
export type ScrapeErrorKind = 'timeout' | 'connect' | 'http_status' | 'too_large' | 'parse' | 'not_prometheus';

export const SCRAPE_ERROR_KINDS: readonly ScrapeErrorKind[] = [
  'timeout',
  'connect',
  'http_status',
  'too_large',
  'parse',
  'not_prometheus',
];

/** Limits of one scrape. */
export interface ScrapeLimits {
  /** A larger body is `too_large`, and no more of it is read (default 8 MiB). */
  readonly maxBodyBytes: number;
  /** More sample lines are `too_large` (default 10 000: a vLLM /metrics has a few hundred to a few thousand). */
  readonly maxSeries: number;
}

export const DEFAULT_SCRAPE_LIMITS: ScrapeLimits = { maxBodyBytes: 8 * 1024 * 1024, maxSeries: 10_000 };

export type ScrapeOutcome =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly kind: ScrapeErrorKind; readonly message: string; readonly bytes: number };

/** What scrapes one endpoint again and again over one connection. */
export interface EndpointGetter {
  get(timeoutMs: number): Promise<ScrapeOutcome>;
  close(): Promise<void>;
}

export interface EndpointTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A bearer key (from the environment); never in a message. */
  readonly apiKey: string | null;
}

const ACCEPT = 'text/plain;version=0.0.4;q=0.9, application/openmetrics-text;version=1.0.0;q=0.5, */*;q=0.1';

class AbortedByTimeout extends Error {}

/** A getter for `target`: its connection opens at the first scrape and is reused. */
export function createEndpointGetter(
  target: EndpointTarget,
  clock: Clock,
  limits: ScrapeLimits = DEFAULT_SCRAPE_LIMITS,
): EndpointGetter {
  const url = new URL(target.url);
  const scrub = createScrubber(target.apiKey);
  const headers: Record<string, string> = { accept: ACCEPT, ...target.headers };
  if (target.apiKey !== null) headers.authorization = `Bearer ${target.apiKey}`;
  // One connection, no pipelining: a scrape at a time. undici's own timers are a backstop only: the
  // timeout that counts is the clock's (so tests can drive it).
  const client = new Client(url.origin, { pipelining: 1, connectTimeout: 60_000 });
  const path = `${url.pathname}${url.search}`;

  async function get(timeoutMs: number): Promise<ScrapeOutcome> {
    const controller = new AbortController();
    const timer = clock.setTimer(() => controller.abort(new AbortedByTimeout()), timeoutMs);
    let bytes = 0;
    const fail = (kind: ScrapeErrorKind, message: string): ScrapeOutcome => ({
      ok: false,
      kind,
      message: scrub(message),
      bytes,
    });
    try {
      const response = await client.request({ path, method: 'GET', headers, signal: controller.signal });
      // undici's body emits an abort error when destroyed unread (a refused answer): never an unhandled one.
      response.body.on('error', () => undefined);
      if (response.statusCode !== 200) {
        response.body.destroy();
        return fail('http_status', `HTTP ${response.statusCode}`);
      }
      const type = String(response.headers['content-type'] ?? '');
      if (/text\/html|application\/json/i.test(type)) {
        response.body.destroy();
        return fail('not_prometheus', `not Prometheus text: content-type ${type}`);
      }
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (declared > limits.maxBodyBytes) {
        response.body.destroy();
        return fail('too_large', `body of ${declared} bytes, more than ${limits.maxBodyBytes}`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > limits.maxBodyBytes) {
          response.body.destroy();
          return fail('too_large', `body larger than ${limits.maxBodyBytes} bytes (read ${bytes}, stopped there)`);
        }
        chunks.push(chunk);
      }
      return { ok: true, text: Buffer.concat(chunks).toString('utf8'), bytes };
    } catch (error) {
      if (controller.signal.aborted) return fail('timeout', `no complete answer within ${timeoutMs} ms`);
      const code = (error as NodeJS.ErrnoException).code;
      return fail('connect', `${code ?? 'error'}: ${(error as Error).message}`);
    } finally {
      clock.clearTimer(timer);
    }
  }

  return {
    get,
    close: async () => {
      await client.destroy().catch(() => undefined);
    },
  };
}
