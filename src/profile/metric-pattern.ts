/**
 * How a `target.server_metrics` name or label pattern is written: "/regex/" or a plain value. The profile's
 * checks (profile/sections/server-metrics.ts) and the scraper (client/server-metrics/) read it the same way.
 */

/** A "/regex/" pattern's body, or null for a plain name or value (the scraper compiles the same way). */
export function regexBody(text: string): string | null {
  return text.length >= 2 && text.startsWith('/') && text.endsWith('/') ? text.slice(1, -1) : null;
}
