/**
 * A URL as outputs may show it: a password in it (http://user:pass@host/metrics) replaced by `***`, the
 * user kept so the endpoint is still recognisable. Not a URL: returned as given.
 */
export function hidePassword(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password === '') return raw;
    url.password = '***';
    return url.toString();
  } catch {
    return raw;
  }
}
