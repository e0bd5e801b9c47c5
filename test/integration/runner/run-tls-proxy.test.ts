/**
 * TLS and proxies against real sockets: an https target whose certificate comes from a CA made in the
 * test is refused by default, reached with target.tls.ca and with insecure_skip_verify (warned about);
 * one that demands a client certificate is reached only with cert and key; a run through a forward
 * proxy (HTTP_PROXY: absolute form, HTTPS_PROXY: CONNECT tunnel) reaches the target and the proxy counts
 * what it carried, NO_PROXY bypasses it; connect_ms and tls_handshake_ms are filled for the requests that
 * opened a connection and empty for the ones that reused one.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnownTimingServer } from '../../helpers/known-timing/known-timing-server.js';
import type { KnownTimingServer } from '../../helpers/known-timing/known-timing-server.js';
import { createInferenceClient } from '../../../src/client/inference-client.js';
import { createRequestRecord } from '../../../src/client/request-record.js';
import type { RequestRecord } from '../../../src/client/request-record.js';
import type { ClientOptions } from '../../../src/client/types.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { startForwardProxy } from '../../helpers/forward-proxy.js';
import type { ForwardProxy } from '../../helpers/forward-proxy.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { makeTestCerts, opensslAvailable } from '../../helpers/test-certs.js';
import type { TestCerts } from '../../helpers/test-certs.js';
import { startTlsFront } from '../../helpers/tls-front.js';
import type { TlsFront } from '../../helpers/tls-front.js';

const folder = useRunFolder('inferbench-tls-proxy-');
const MODEL = 'known-timing';

/** requests.csv as objects (the rows of ok requests here have no quoted commas). */
function csvRows(runDir: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(join(runDir, 'requests.csv'), 'utf8').trim().split('\n');
  const names = (header as string).split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((name, i) => [name, cells[i] ?? '']));
  });
}

/** A closed-loop profile: `concurrency` users, `requests` requests, the given target block. */
function profile(name: string, target: string, concurrency = 2, requests = 10): string {
  return folder.writeProfile(
    name,
    `name: ${name}
${target}
scenarios:
  - name: s
    models: [${MODEL}]
    load: { mode: concurrency, concurrency: ${concurrency} }
    requests: ${requests}
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 16 }
`,
  );
}

async function run(profilePath: string, baseUrl: string, out: string, env: Record<string, string> = {}) {
  return runCliInProcess(['run', profilePath, '--base-url', baseUrl, '--out', join(folder.dir, out)], {
    cwd: folder.dir,
    env: { PATH: process.env.PATH, ...env },
  });
}

function oneClient(baseUrl: string, overrides: Partial<ClientOptions> = {}) {
  return createInferenceClient({
    baseUrl,
    apiKey: null,
    headers: { 'x-service-version-patch': '2' },
    requestIdHeader: null,
    maxConnections: 1,
    timeouts: { connectMs: 5_000, headersMs: 10_000, firstTokenMs: 10_000, idleMs: 10_000, totalMs: 30_000 },
    retry: { maxAttempts: 1, on: [], backoffMs: 50 },
    encoding: { contentType: 'json', gzip: false },
    ...overrides,
  });
}

async function sendOne(client: ReturnType<typeof oneClient>): Promise<RequestRecord> {
  const record = createRequestRecord(0, 0, Math.round(performance.now() * 1000));
  await client.send(
    { body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, max_completion_tokens: 4 } },
    record,
  );
  await client.close();
  return record;
}

/** Rows whose cell `column` is filled; every filled value a plausible duration (generous: a loaded machine). */
function filled(rows: Record<string, string>[], column: string): number {
  const values = rows.map((row) => row[column] ?? '').filter((cell) => cell !== '');
  for (const value of values) {
    expect(Number(value)).toBeGreaterThanOrEqual(0);
    expect(Number(value)).toBeLessThan(5_000);
  }
  return values.length;
}

let backend: KnownTimingServer;
beforeAll(async () => {
  backend = await startKnownTimingServer({ ttftMs: 5, itlMs: 1, tokens: 4, model: MODEL });
});
afterAll(async () => {
  await backend.close();
});

describe('connect and TLS handshake times', () => {
  it('fills connect_ms only for the requests that opened a connection, tls_handshake_ms never on plain http', async () => {
    const result = await run(profile('plain', ''), backend.url, 'plain');
    expect(result.code, result.stderr).toBe(0);
    const rows = csvRows(join(folder.dir, 'plain'));
    expect(rows).toHaveLength(10);
    // Concurrency 2: two connections opened, the other eight requests reused them.
    expect(filled(rows, 'connect_ms')).toBe(2);
    expect(filled(rows, 'tls_handshake_ms')).toBe(0);
    const header = readFileSync(join(folder.dir, 'plain', 'requests.csv'), 'utf8')
      .split('\n')[0]!
      .split(',');
    expect(header.indexOf('connect_ms')).toBe(header.indexOf('schedule_lag_ms') + 1);
    expect(header.indexOf('tls_handshake_ms')).toBe(header.indexOf('schedule_lag_ms') + 2);
    const group = readSummary(join(folder.dir, 'plain')).groups[0]!;
    expect(group.metrics.connect_ms?.count).toBe(2);
    expect(group.metrics.tls_handshake_ms).toBeUndefined();
    expect(group.histograms.connect_ms).toMatch(/^HISTF/);
    expect(readFileSync(join(folder.dir, 'plain', 'summary.csv'), 'utf8')).toContain('connect_ms');
  });
});

// Skipped on a machine without openssl, never in CI (CI=true): .ci/run installs it, and a missing one fails.
describe.skipIf(!opensslAvailable() && process.env['CI'] !== 'true')(
  'https targets (certificates made in the test)',
  () => {
    let certs: TestCerts;
    let front: TlsFront;
    let mutual: TlsFront;

    beforeAll(async () => {
      certs = makeTestCerts();
      front = await startTlsFront({
        cert: certs.pem(certs.serverCert),
        key: certs.pem(certs.serverKey),
        backendPort: Number(new URL(backend.url).port),
      });
      mutual = await startTlsFront({
        cert: certs.pem(certs.serverCert),
        key: certs.pem(certs.serverKey),
        backendPort: Number(new URL(backend.url).port),
        requestCert: true,
        ca: certs.pem(certs.caCert),
      });
    });
    afterAll(async () => {
      await front?.close();
      await mutual?.close();
      certs?.remove();
    });

    it('refuses a certificate it cannot verify: a classified connect error about the certificate, no crash', async () => {
      const record = await sendOne(oneClient(front.url));
      expect(record.errorClass).toBe('connect');
      expect(record.errorMessage).toMatch(/certificate/i);
      // The TCP connect happened; the handshake did not finish.
      expect(record.connectEndUs - record.connectStartUs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(record.tlsEndUs)).toBe(true);

      const result = await run(profile('refused', ''), front.url, 'refused');
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/certificate/i);
    });

    it('reaches it with target.tls.ca (relative to the profile), with connect and handshake times per new connection', async () => {
      const relativeCa = relative(folder.dir, certs.caCert);
      const result = await run(
        profile('with-ca', `target:\n  tls: { ca: ${JSON.stringify(relativeCa)} }`),
        front.url,
        'with-ca',
      );
      expect(result.code, result.stderr).toBe(0);
      const out = join(folder.dir, 'with-ca');
      const summary = readSummary(out);
      expect(summary.groups[0]!.requests.ok).toBe(10);
      expect(summary.target.tls).toEqual({ ca: certs.caCert, cert: null, insecure_skip_verify: false });
      const rows = csvRows(out);
      expect(filled(rows, 'connect_ms')).toBe(2);
      expect(filled(rows, 'tls_handshake_ms')).toBe(2);
      // The same rows: the two requests that opened the two connections.
      expect(rows.filter((row) => row['connect_ms'] !== '' && row['tls_handshake_ms'] !== '')).toHaveLength(2);
      expect(summary.groups[0]!.metrics.tls_handshake_ms?.count).toBe(2);
      expect(result.stderr).not.toMatch(/WARNING/);
    });

    it('reaches it with insecure_skip_verify, warning loudly and recording it in summary.json', async () => {
      const result = await run(
        profile('insecure', 'target:\n  tls: { insecure_skip_verify: true }'),
        front.url,
        'insecure',
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/WARNING: target\.tls\.insecure_skip_verify is true/);
      const summary = readSummary(join(folder.dir, 'insecure'));
      expect(summary.groups[0]!.requests.ok).toBe(10);
      expect(summary.target.tls?.insecure_skip_verify).toBe(true);
      expect(summary.harness.warnings.some((w) => w.includes('insecure_skip_verify'))).toBe(true);
    });

    it('is refused by a server that requires a client certificate without one, and reaches it with cert and key', async () => {
      const record = await sendOne(
        oneClient(mutual.url, {
          tls: { caPath: certs.caCert, certPath: null, keyPath: null, insecureSkipVerify: false },
        }),
      );
      // TLS 1.3: the client's side of the handshake completes, then the server's alert closes the
      // connection as the request is written; undici reports that as the other side closing (reset).
      expect(['connect', 'reset']).toContain(record.errorClass);
      expect(mutual.stats.tlsErrors).toBeGreaterThanOrEqual(1);
      const refused = await run(
        profile('mtls-refused', `target:\n  tls: { ca: ${JSON.stringify(certs.caCert)} }`),
        mutual.url,
        'mtls-refused',
      );
      expect(refused.code).toBe(3);

      const tls = `target:\n  tls:\n    ca: ${JSON.stringify(certs.caCert)}\n    cert: ${JSON.stringify(certs.clientCert)}\n    key: ${JSON.stringify(certs.clientKey)}`;
      const result = await run(profile('mtls', tls), mutual.url, 'mtls');
      expect(result.code, result.stderr).toBe(0);
      expect(readSummary(join(folder.dir, 'mtls')).groups[0]!.requests.ok).toBe(10);
      // Key material never reaches an output.
      const key = readFileSync(certs.clientKey, 'utf8').split('\n')[1]!;
      for (const file of ['summary.json', 'requests.csv', 'report.html'])
        expect(readFileSync(join(folder.dir, 'mtls', file), 'utf8')).not.toContain(key);
      expect(result.stdout + result.stderr).not.toContain(key);
    });

    it('goes through HTTPS_PROXY as a CONNECT tunnel, one per connection, TLS to the target inside it', async () => {
      const proxy = await startForwardProxy();
      try {
        const result = await run(
          profile('tunnel', `target:\n  tls: { ca: ${JSON.stringify(certs.caCert)} }`),
          front.url,
          'tunnel',
          { HTTPS_PROXY: proxy.url },
        );
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain(`through the proxy ${proxy.url}`);
        // GET /v1/models and GET /public/v1/models (the price catalog) on connections of their own, then
        // two connections for the run.
        expect(proxy.stats.tunnels).toBe(4);
        const rows = csvRows(join(folder.dir, 'tunnel'));
        expect(rows.filter((row) => row['status'] === '200')).toHaveLength(10);
        expect(filled(rows, 'connect_ms')).toBe(2);
        expect(filled(rows, 'tls_handshake_ms')).toBe(2);
        expect(readSummary(join(folder.dir, 'tunnel')).target.proxy).toBe(proxy.url);
      } finally {
        await proxy.close();
      }
    });

    it('rejects a PEM file that is not one, naming the file (exit 2)', async () => {
      const bogus = folder.writeProfile('not-a-cert', 'just text');
      const result = await run(
        profile('bad-ca', `target:\n  tls: { ca: ${JSON.stringify(bogus)} }`),
        front.url,
        'bad-ca',
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(bogus);
    });
  },
);

describe('HTTP_PROXY and NO_PROXY', () => {
  let proxy: ForwardProxy;
  beforeAll(async () => {
    proxy = await startForwardProxy({ credentials: 'bench:s3cret-pass' });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('sends every request through the proxy (with its credentials), and never prints or records them', async () => {
    const before = backend.stats.requests;
    const proxyUrl = proxy.url.replace('http://', 'http://bench:s3cret-pass@');
    const result = await run(profile('proxied', ''), backend.url, 'proxied', { HTTP_PROXY: proxyUrl });
    expect(result.code, result.stderr).toBe(0);
    const completions = proxy.stats.targets.filter((url) => url.endsWith('/v1/chat/completions'));
    expect(completions).toHaveLength(10);
    expect(proxy.stats.targets.filter((url) => new URL(url).pathname === '/v1/models')).toHaveLength(1);
    // The price catalog too goes through the proxy.
    expect(proxy.stats.targets.filter((url) => new URL(url).pathname === '/public/v1/models')).toHaveLength(1);
    expect(backend.stats.requests - before).toBe(10);
    expect(proxy.stats.refused).toBe(0);
    expect(result.stderr).toContain(`through the proxy ${proxy.url}`);
    const out = join(folder.dir, 'proxied');
    expect(readSummary(out).target.proxy).toBe(proxy.url);
    // Through a proxy connect_ms is the connect to the proxy: still one per new connection.
    expect(filled(csvRows(out), 'connect_ms')).toBe(2);
    for (const file of ['summary.json', 'requests.csv', 'report.html'])
      expect(readFileSync(join(out, file), 'utf8')).not.toContain('s3cret');
    expect(result.stdout + result.stderr).not.toContain('s3cret');
  });

  it('bypasses the proxy for a host NO_PROXY names (lowercase forms too)', async () => {
    const forwarded = proxy.stats.forwarded;
    const result = await run(profile('bypass', ''), backend.url, 'bypass', {
      http_proxy: proxy.url,
      no_proxy: 'localhost,127.0.0.1',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(proxy.stats.forwarded - forwarded).toBe(0);
    expect(result.stderr).not.toContain('through the proxy');
    expect(readSummary(join(folder.dir, 'bypass')).target.proxy).toBeNull();
  });
});
