/**
 * `target.server_metrics`: the target's own Prometheus endpoints (the engine's /metrics, NVIDIA's DCGM
 * exporter), scraped beside the client's view (client/server-metrics/). Its schema, the checks a schema
 * cannot express (a regex that compiles, a timeout within the interval, no key in a header), its
 * resolution (durations in ms, the default timeout a little under the interval), how `validate` shows it,
 * and `--server-metrics URL` (repeatable), which appends an endpoint with the defaults before validation
 * so that a bad URL is reported like one in the file, naming the flag.
 */
import { z } from 'zod';
import { formatDurationMs, parseDurationMs } from '../../util/duration.js';
import { duration } from '../field-kinds.js';
import type { ProfileIssue } from '../profile-issue.js';
import type { ServerMetricsPreset, ServerMetricsSpec } from '../resolved-profile.js';

/** The presets a user may name; `auto` recognises the engine from the first scrape's metric names. */
export const SERVER_METRICS_PRESETS = [
  'auto',
  'vllm',
  'sglang',
  'tgi',
  'llamacpp',
  'trtllm',
  'dynamo',
  'triton',
  'dcgm',
] as const satisfies readonly ServerMetricsPreset[];

export const SERVER_METRICS_DEFAULTS = {
  intervalMs: 1_000,
  /** The default timeout is this share of the interval: a slow scrape ends before the next one is due. */
  timeoutShare: 0.8,
  /** Scraping faster than this would itself load a busy engine's /metrics handler. */
  minIntervalMs: 100,
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `/metrics`: a path on the run's target, resolved against its base URL when the run starts (resolveEndpointUrl). */
export function isTargetPath(value: string): boolean {
  return /^\/[^\s/][^\s]*$|^\/$/.test(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An endpoint's URL for a run against `targetBaseUrl` (without /v1): a path is on the target, a URL is itself. */
export function resolveEndpointUrl(url: string, targetBaseUrl: string): string {
  return isTargetPath(url) ? new URL(url, `${targetBaseUrl.replace(/\/+$/, '')}/`).toString() : url;
}
/** Headers that carry credentials: keys come from the environment only (api_key_env), never from a profile. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'cookie']);

const endpointSchema = z.strictObject({
  url: z
    .string()
    .refine((value) => isTargetPath(value) || isHttpUrl(value), {
      error: 'expected an http(s) URL (http://vllm:8000/metrics) or a path on the target (/metrics)',
    })
    .meta({
      description:
        "The Prometheus text endpoint, e.g. http://vllm:8000/metrics or http://dcgm:9400/metrics; a path such as /metrics is on the run's target (the embedded emulator's too).",
    }),
  preset: z.enum(SERVER_METRICS_PRESETS).optional().meta({
    description:
      'Which names map to the common concepts (docs/server-metrics.md): auto (default) recognises the engine from the first scrape.',
  }),
  interval: duration.optional().meta({ description: 'Time between two scrapes (default 1s; at least 100ms).' }),
  timeout: duration.optional().meta({
    description: 'Give a scrape up after this long (default 80% of the interval; at most the interval).',
  }),
  metrics: z.array(z.string().min(1)).optional().meta({
    description:
      "More names to keep beside the preset's, written as summary.json's extras: a metric name (a histogram's family name keeps its _bucket, _sum and _count), or a /regex/ over names (e.g. \"/^vllm:spec_decode/\").",
  }),
  labels: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string())
    .optional()
    .meta({
      description:
        'Of the series that have these labels, keep those with these values, e.g. { model_name: my-model } (a series without the label is kept); a value "/regex/" matches by regex.',
    }),
  headers: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .optional()
    .meta({ description: 'Headers sent with every scrape (no keys: use api_key_env).' }),
  api_key_env: z
    .string()
    .regex(ENV_NAME, {
      error: 'expected the NAME of an environment variable (the key itself never goes in a profile)',
    })
    .optional()
    .meta({
      description: 'Variable holding a bearer key for the endpoint (sent as Authorization: Bearer; never printed).',
    }),
});

export const serverMetricsSchema = z.array(endpointSchema).meta({
  id: 'serverMetrics',
  description:
    "The target's own Prometheus endpoints, scraped beside the client's view: [{ url: http://vllm:8000/metrics, preset: auto }].",
});

export type ServerMetricsInput = z.infer<typeof serverMetricsSchema>;
type EndpointInput = z.infer<typeof endpointSchema>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A "/regex/" pattern's body, or null for a plain name or value (the scraper compiles the same way). */
export function regexBody(text: string): string | null {
  return text.length >= 2 && text.startsWith('/') && text.endsWith('/') ? text.slice(1, -1) : null;
}

function regexProblem(body: string): string | null {
  try {
    new RegExp(body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The rules a per-field schema cannot express, on the data as written (validated or not). */
export function checkServerMetrics(input: unknown): ProfileIssue[] {
  if (!Array.isArray(input)) return [];
  const issues: ProfileIssue[] = [];
  input.forEach((endpoint, i) => {
    if (!isRecord(endpoint)) return;
    const at = (...rest: (string | number)[]) => ['target', 'server_metrics', i, ...rest];
    if (Array.isArray(endpoint.metrics)) {
      endpoint.metrics.forEach((item, j) => {
        const body = typeof item === 'string' ? regexBody(item) : null;
        const problem = body === null ? null : regexProblem(body);
        if (problem !== null) issues.push({ path: at('metrics', j), message: `not a valid regex: ${problem}` });
      });
    }
    if (isRecord(endpoint.labels)) {
      for (const [name, value] of Object.entries(endpoint.labels)) {
        const body = typeof value === 'string' ? regexBody(value) : null;
        const problem = body === null ? null : regexProblem(body);
        if (problem !== null) issues.push({ path: at('labels', name), message: `not a valid regex: ${problem}` });
      }
    }
    if (isRecord(endpoint.headers)) {
      for (const header of Object.keys(endpoint.headers)) {
        if (SECRET_HEADERS.has(header.toLowerCase()))
          issues.push({
            path: at('headers', header),
            atKey: true,
            message: 'keys never go in a profile: name the environment variable in api_key_env',
          });
      }
    }
    const intervalMs = asMs(endpoint.interval);
    if (intervalMs !== undefined && intervalMs < SERVER_METRICS_DEFAULTS.minIntervalMs)
      issues.push({ path: at('interval'), message: 'at least 100ms: faster scrapes would load the server themselves' });
    const timeoutMs = asMs(endpoint.timeout);
    if (timeoutMs !== undefined && timeoutMs <= 0)
      issues.push({ path: at('timeout'), message: 'expected a positive duration' });
    else if (timeoutMs !== undefined && timeoutMs > (intervalMs ?? SERVER_METRICS_DEFAULTS.intervalMs))
      issues.push({
        path: at('timeout'),
        message: `at most the interval (${formatDurationMs(intervalMs ?? SERVER_METRICS_DEFAULTS.intervalMs)}): one scrape at a time`,
      });
  });
  return issues;
}

function asMs(value: unknown): number | undefined {
  return typeof value === 'string' || typeof value === 'number' ? parseDurationMs(value) : undefined;
}

/** One endpoint with its defaults, durations in ms, `/regex/` texts as RegExps. */
function resolveEndpoint(input: EndpointInput): ServerMetricsSpec {
  const intervalMs = input.interval === undefined ? SERVER_METRICS_DEFAULTS.intervalMs : asMs(input.interval)!;
  return {
    url: input.url,
    preset: input.preset ?? 'auto',
    intervalMs,
    timeoutMs:
      input.timeout === undefined
        ? Math.round(intervalMs * SERVER_METRICS_DEFAULTS.timeoutShare)
        : asMs(input.timeout)!,
    metrics: [...(input.metrics ?? [])],
    labels: { ...(input.labels ?? {}) },
    headers: Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k, String(v)])),
    apiKeyEnv: input.api_key_env ?? null,
  };
}

/** `{ serverMetrics }` when the profile (or --server-metrics) names endpoints, else nothing. */
export function resolveServerMetrics(input: ServerMetricsInput | undefined): {
  serverMetrics?: readonly ServerMetricsSpec[];
} {
  if (input === undefined || input.length === 0) return {};
  return { serverMetrics: input.map(resolveEndpoint) };
}

/**
 * `--server-metrics URL` (repeatable): appends `{ url }` per flag to a copy of the profile data, before
 * validation. Returns the new data and, per appended index, the flag text that issues there name.
 */
export function appendServerMetricsFlags(
  data: unknown,
  urls: readonly string[],
): { data: unknown; origins: ReadonlyMap<number, string> } {
  if (urls.length === 0) return { data, origins: new Map() };
  const root: Record<string, unknown> = isRecord(data) ? structuredClone(data) : {};
  const target: Record<string, unknown> = isRecord(root.target) ? root.target : {};
  const list: unknown[] = Array.isArray(target.server_metrics) ? target.server_metrics : [];
  const origins = new Map<number, string>();
  for (const url of urls) {
    origins.set(list.length, `--server-metrics ${url}`);
    list.push({ url });
  }
  target.server_metrics = list;
  root.target = target;
  return { data: root, origins };
}

/** How `validate` shows the endpoints (nothing when there are none). */
export function formatServerMetrics(endpoints: readonly ServerMetricsSpec[] | undefined): string {
  if (endpoints === undefined || endpoints.length === 0) return '';
  const lines = endpoints.map((e) => {
    const parts = [
      `preset ${e.preset}`,
      `every ${formatDurationMs(e.intervalMs)}`,
      `timeout ${formatDurationMs(e.timeoutMs)}`,
    ];
    if (e.metrics.length > 0) parts.push(`also ${e.metrics.join(', ')}`);
    const labels = Object.entries(e.labels);
    if (labels.length > 0) parts.push(`labels ${labels.map(([k, v]) => `${k}=${v}`).join(', ')}`);
    if (Object.keys(e.headers).length > 0) parts.push(`headers: ${Object.keys(e.headers).join(', ')}`);
    if (e.apiKeyEnv !== null) parts.push(`key from $${e.apiKeyEnv}`);
    return `  ${e.url}: ${parts.join(', ')}\n`;
  });
  return `server metrics:\n${lines.join('')}`;
}
