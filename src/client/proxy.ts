/**
 * The standard proxy environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, lowercase forms first) as
 * plain settings, and the one decision made from them: which proxy, if any, carries the requests to a
 * target. The rules are undici's EnvHttpProxyAgent's (an https target falls back to HTTP_PROXY;
 * NO_PROXY entries match the host or any subdomain, optionally with a port; `*` turns proxying off), but
 * decided once per target here, so the run can say which proxy it uses and the client keeps one
 * connection per request slot. The environment is handed in by cli/: nothing here reads `process`.
 */
import { InferbenchError } from '../errors.js';

/** What the environment says; null/'' when unset. */
export interface ProxySettings {
  readonly httpProxy: string | null;
  readonly httpsProxy: string | null;
  readonly noProxy: string;
}

/** No proxy at all (tests, the embedded emulator). */
export const NO_PROXY_SETTINGS: ProxySettings = { httpProxy: null, httpsProxy: null, noProxy: '' };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

/** The proxy variables of `env` (lowercase wins over uppercase, as curl and undici read them). */
export function proxySettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ProxySettings {
  return {
    httpProxy: nonEmpty(env['http_proxy']) ?? nonEmpty(env['HTTP_PROXY']),
    httpsProxy: nonEmpty(env['https_proxy']) ?? nonEmpty(env['HTTPS_PROXY']),
    noProxy: nonEmpty(env['no_proxy']) ?? nonEmpty(env['NO_PROXY']) ?? '',
  };
}

/** True when NO_PROXY names the host (or a parent domain of it), on any port or on this one. */
function bypassed(noProxy: string, hostname: string, port: number): boolean {
  if (noProxy.trim() === '*') return true;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (entry === '') continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? (parsed[1] as string) : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2] as string, 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

/** The proxy a request to `targetUrl` goes through, or null for a direct connection. */
export function proxyFor(targetUrl: string | URL, settings: ProxySettings): URL | null {
  const target = typeof targetUrl === 'string' ? new URL(targetUrl) : targetUrl;
  const proxy = target.protocol === 'https:' ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (proxy === null) return null;
  // host keeps an IPv6 address's brackets; the port is the explicit one or the protocol's default.
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  if (bypassed(settings.noProxy, hostname, port)) return null;
  return parseProxyUrl(proxy);
}

/** A proxy URL as the variables give it (`host:port` alone means http://host:port). */
export function parseProxyUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (error) {
    throw new InferbenchError('BAD_USAGE', `the proxy in the environment is not a URL: ${withoutCredentials(text)}`, {
      cause: error,
      hint: 'set HTTPS_PROXY / HTTP_PROXY to a URL such as http://proxy.example.com:3128',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InferbenchError(
      'BAD_USAGE',
      `proxy ${withoutCredentials(text)}: only http:// and https:// proxies are supported`,
      {
        hint: 'set HTTPS_PROXY / HTTP_PROXY to an http(s) proxy URL',
      },
    );
  }
  return url;
}

/** A URL safe to print and record: user and password removed. */
export function withoutCredentials(url: string | URL): string {
  if (typeof url === 'string') {
    try {
      // `user:pw@host:3128` would parse as the scheme "user:": read it as the proxy variables mean it.
      return withoutCredentials(new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`));
    } catch {
      // Not a URL: drop anything that looks like user:password@.
      return url.replace(/^([^/]*\/\/)?[^@/]*@/, '$1');
    }
  }
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href.replace(/\/$/, '');
}

/** The `Proxy-Authorization` value of a proxy URL with credentials (Basic), else null. */
export function proxyAuthorization(proxy: URL): string | null {
  if (proxy.username === '' && proxy.password === '') return null;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
