/**
 * proxy.ts: the proxy environment read from a plain record (lowercase first), the one routing decision
 * per target (https falls back to HTTP_PROXY; NO_PROXY by host, parent domain, port, `*`), and proxy
 * URLs made safe to print.
 */
import { describe, expect, it } from 'vitest';
import { proxyAuthorization, proxyFor, proxySettingsFromEnv, withoutCredentials } from '../../../src/client/proxy.js';

const via = (target: string, env: Record<string, string>): string | null =>
  proxyFor(target, proxySettingsFromEnv(env))?.href ?? null;

describe('proxy environment', () => {
  it('routes http targets through HTTP_PROXY and https targets through HTTPS_PROXY, falling back to HTTP_PROXY', () => {
    expect(via('http://api.example.com', { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://s:3128' })).toBe(
      'http://p:3128/',
    );
    expect(via('https://api.example.com', { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://s:3128' })).toBe(
      'http://s:3128/',
    );
    expect(via('https://api.example.com', { HTTP_PROXY: 'http://p:3128' })).toBe('http://p:3128/');
    expect(via('http://api.example.com', { HTTPS_PROXY: 'http://s:3128' })).toBeNull();
    expect(via('http://api.example.com', {})).toBeNull();
  });

  it('prefers the lowercase variables and accepts host:port without a scheme', () => {
    expect(via('http://a.example', { http_proxy: 'low:1', HTTP_PROXY: 'http://up:2' })).toBe('http://low:1/');
  });

  it('bypasses hosts NO_PROXY names: exact, parent domain, leading dot or *., port, and *', () => {
    const env = { HTTPS_PROXY: 'http://p:3128' };
    expect(via('https://api.example.com', { ...env, NO_PROXY: 'example.com' })).toBeNull();
    expect(via('https://api.example.com', { ...env, NO_PROXY: '.example.com' })).toBeNull();
    expect(via('https://api.example.com', { ...env, NO_PROXY: '*.example.com' })).toBeNull();
    expect(via('https://api.example.com', { ...env, NO_PROXY: 'other.com, example.com:443' })).toBeNull();
    expect(via('https://api.example.com', { ...env, NO_PROXY: 'example.com:8443' })).toBe('http://p:3128/');
    expect(via('https://notexample.com', { ...env, NO_PROXY: 'example.com' })).toBe('http://p:3128/');
    expect(via('https://anything.example', { ...env, no_proxy: '*' })).toBeNull();
    expect(via('http://127.0.0.1:8080', { HTTP_PROXY: 'http://p:3128', NO_PROXY: '127.0.0.1' })).toBeNull();
  });

  it('never prints credentials, and turns them into a Proxy-Authorization header', () => {
    expect(withoutCredentials('http://user:pa%40ss@proxy.example:3128')).toBe('http://proxy.example:3128');
    expect(withoutCredentials('user:secret@proxy:3128')).not.toContain('secret');
    expect(proxyAuthorization(new URL('http://user:pa%40ss@proxy:3128'))).toBe(
      `Basic ${Buffer.from('user:pa@ss').toString('base64')}`,
    );
    expect(proxyAuthorization(new URL('http://proxy:3128'))).toBeNull();
  });

  it('refuses a proxy that is not http(s)', () => {
    expect(() => via('http://a.example', { HTTP_PROXY: 'socks5://p:1080' })).toThrow(/only http/);
  });
});
