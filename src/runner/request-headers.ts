/**
 * Headers every request carries: inferbench's integration tag and the API version, unless the profile's
 * target.headers set the same names (compared case-insensitively, as HTTP does).
 */
import { API_VERSION_PATCH } from '../protocol/headers.js';

export function requestHeaders(
  version: string,
  profileHeaders: Readonly<Record<string, string>>,
): Record<string, string> {
  const defaults: Record<string, string> = {
    'X-Service-3rd-Party-Integration': `inferbench/${version}`,
    'X-Service-Version-Patch': API_VERSION_PATCH,
  };
  const overridden = new Set(Object.keys(profileHeaders).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults)) if (!overridden.has(name.toLowerCase())) headers[name] = value;
  return { ...headers, ...profileHeaders };
}
