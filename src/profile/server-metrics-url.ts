/**
 * Where a `target.server_metrics` endpoint (profile/sections/server-metrics.ts) is scraped: a path is on the
 * run's target, a URL is itself. Apart from the section so that the runner (and each worker thread) uses it
 * without loading the profile's schema.
 */

/** `/metrics`: a path on the run's target, resolved against its base URL when the run starts (resolveEndpointUrl). */
export function isTargetPath(value: string): boolean {
  return /^\/[^\s/][^\s]*$|^\/$/.test(value);
}

/** An endpoint's URL for a run against `targetBaseUrl` (without /v1): a path is on the target, a URL is itself. */
export function resolveEndpointUrl(url: string, targetBaseUrl: string): string {
  return isTargetPath(url) ? new URL(url, `${targetBaseUrl.replace(/\/+$/, '')}/`).toString() : url;
}
