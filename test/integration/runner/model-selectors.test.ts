/**
 * resolveModelSelectors against real servers on 127.0.0.1: the emulator (its built-in catalog, a
 * management key and an org of its own) resolves every selector into sorted ids and groups; a server with
 * a plain model list where the public catalog should be, and no management API, fails clearly; keys
 * never appear in a message, and the management key is asked only when a selector needs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { fetchPublicCatalog } from '../../../src/client/public-catalog.js';
import { BUILTIN_MODELS, builtinEndpoints } from '../../../src/emulator/catalog/builtin-catalog.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { isInferbenchError } from '../../../src/errors.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveModelSelectors, type SelectorAccess } from '../../../src/runner/model-selectors.js';
import { startTestServer, type TestServer } from '../../helpers/fault-servers.js';

const API_KEY = 'api-key-4d1c';
const MANAGEMENT_KEY = 'mgmt-key-90ab';

const profileOf = (scenarios: Record<string, string>) =>
  resolveProfileText(
    `scenarios:\n${Object.entries(scenarios)
      .map(([name, models]) => `  - name: ${name}\n    models: ${models}\n    requests: 1\n`)
      .join('')}`,
    '/x/p.yaml',
  );

const accessTo = (baseUrl: string, managementKey: () => string, apiKey = API_KEY): SelectorAccess => ({
  request: { baseUrl, headers: { 'X-Service-Version-Patch': '2' }, tls: null, proxy: null, timeoutMs: 5_000 },
  apiKey,
  managementKey,
});

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; hint: string }> {
  try {
    await promise;
  } catch (error) {
    if (!isInferbenchError(error)) throw error;
    return { code: error.code, message: error.message, hint: error.hint ?? '' };
  }
  throw new Error('expected an InferbenchError');
}

describe('against the emulator', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ apiKeys: [API_KEY], managementKeys: [MANAGEMENT_KEY], org: 'acme' });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('resolves every selector into sorted ids, each its own group, and says what it selected', async () => {
    const profile = profileOf({
      every: 'all',
      think: '{ capability: reasoning }',
      again: '{ capability: [reasoning] }',
      ours: '{ endpoints_of: acme }',
      listed: '[vision-17b]',
    });
    const { profile: resolved, notes } = await resolveModelSelectors(
      profile,
      accessTo(emulator.url, () => MANAGEMENT_KEY),
    );
    expect(resolved.groups.map((g) => g.key)).toEqual([
      'every/large-70b/-',
      'every/reasoner-120b/-',
      'every/small-fast-8b/-',
      'every/thinker-32b/-',
      'every/vision-17b/-',
      'think/reasoner-120b/-',
      'think/thinker-32b/-',
      'again/reasoner-120b/-',
      'again/thinker-32b/-',
      'ours/ep-large-70b-dedicated/-',
      'listed/vision-17b/-',
    ]);
    expect(notes).toEqual([
      'models: all -> large-70b, reasoner-120b, small-fast-8b, thinker-32b, vision-17b (GET /v1/models)',
      'models: { capability: reasoning } -> reasoner-120b, thinker-32b (the public catalog, GET /public/v1/models)',
      'models: { endpoints_of: acme } -> ep-large-70b-dedicated (the management API, GET /management/v1/orgs/acme/endpoints)',
    ]);
  });

  it('never asks for the management key without endpoints_of, and returns a profile without selectors as it is', async () => {
    const noKey = () => {
      throw new Error('the management key was asked');
    };
    const listed = profileOf({ s: '[large-70b]' });
    expect((await resolveModelSelectors(listed, accessTo(emulator.url, noKey))).profile).toBe(listed);
    const selected = await resolveModelSelectors(
      profileOf({ s: '{ capability: vision }' }),
      accessTo(emulator.url, noKey),
    );
    expect(selected.profile.groups.map((g) => g.key)).toEqual(['s/vision-17b/-']);
  });

  it('names the selector, target and status of a refused key, without the key', async () => {
    const wrongApi = await failure(
      resolveModelSelectors(
        profileOf({ s: 'all' }),
        accessTo(emulator.url, () => MANAGEMENT_KEY, 'wrong-api-77'),
      ),
    );
    expect(wrongApi.code).toBe('TARGET_ERROR');
    expect(wrongApi.message).toContain(`models: all (target ${emulator.url}): GET /v1/models answered 401`);
    expect(wrongApi.message).not.toContain('wrong-api-77');
    const wrongMgmt = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ endpoints_of: acme }' }),
        accessTo(emulator.url, () => 'wrong-mgmt-66'),
      ),
    );
    expect(wrongMgmt.message).toContain(`GET ${emulator.url}/management/v1/orgs/acme/endpoints answered 401`);
    expect(`${wrongMgmt.message}${wrongMgmt.hint}`).not.toContain('wrong-mgmt-66');
    const otherOrg = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ endpoints_of: local }' }),
        accessTo(emulator.url, () => MANAGEMENT_KEY),
      ),
    );
    expect(otherOrg.message).toContain('/management/v1/orgs/local/endpoints answered 404');
  });

  it('stops (RUN_FAILED) when a selector selects nothing', async () => {
    const none = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ capability: [vision, reasoning] }' }),
        accessTo(emulator.url, () => ''),
      ),
    );
    expect(none.code).toBe('RUN_FAILED');
    expect(none.message).toBe(
      `models: { capability: [vision, reasoning] } selects no model of ${emulator.url} (the public catalog, GET /public/v1/models)`,
    );
  });
});

describe('against a server with a plain model list and no management API', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      const list = JSON.stringify({ object: 'list', data: [{ id: 'only-model', object: 'model' }] });
      // Any */v1/models path answers the plain list (a gateway that routes loosely); nothing else exists.
      res.writeHead(req.url.endsWith('/v1/models') ? 200 : 404, { 'content-type': 'application/json' });
      res.end(req.url.endsWith('/v1/models') ? list : JSON.stringify({ message: 'no such route' }));
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('selects all, refuses capability (no capabilities listed) and endpoints_of (404), naming URLs', async () => {
    const all = await resolveModelSelectors(
      profileOf({ s: 'all' }),
      accessTo(server.url, () => 'mk'),
    );
    expect(all.profile.groups.map((g) => g.key)).toEqual(['s/only-model/-']);
    const capability = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ capability: tools }' }),
        accessTo(server.url, () => 'mk'),
      ),
    );
    expect(capability.code).toBe('TARGET_ERROR');
    expect(capability.message).toContain(
      `GET ${server.url}/public/v1/models lists no model with capabilities: not a public catalog of the spec`,
    );
    const managed = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ endpoints_of: acme }' }),
        accessTo(server.url, () => 'mk'),
      ),
    );
    expect(managed.message).toContain(
      `GET ${server.url}/management/v1/orgs/acme/endpoints answered 404: no such route`,
    );
    // The management request carried the key as a bearer token.
    const asked = server.requests.find((r) => r.url.startsWith('/management/'));
    expect(asked?.headers.authorization).toBe('Bearer mk');
    // The public catalog never gets a key.
    expect(server.requests.find((r) => r.url === '/public/v1/models')?.headers.authorization).toBeUndefined();
  });

  it('reports an unreachable target with its URL (TARGET_UNREACHABLE)', async () => {
    const unreachable = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ capability: tools }' }),
        accessTo('http://127.0.0.1:1', () => 'mk'),
      ),
    );
    expect(unreachable.code).toBe('TARGET_UNREACHABLE');
    expect(unreachable.message).toContain('GET http://127.0.0.1:1/public/v1/models failed: ECONNREFUSED');
  });
});

describe('a catalog that lists a deprecated model', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    // thinker-32b deprecated: the public catalog still lists it (with deprecated: true), requests to it are 404s.
    const models = BUILTIN_MODELS.map((m) => (m.id === 'thinker-32b' ? { ...m, deprecated: true } : m));
    emulator = await createEmulator({ catalog: { models, endpoints: builtinEndpoints('local') } });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('leaves the deprecated model out of a capability selector, and says so', async () => {
    const { profile, notes } = await resolveModelSelectors(
      profileOf({ think: '{ capability: reasoning }' }),
      accessTo(emulator.url, () => ''),
    );
    expect(profile.groups.map((g) => g.key)).toEqual(['think/reasoner-120b/-']);
    expect(notes).toEqual([
      'models: { capability: reasoning } -> reasoner-120b (the public catalog, GET /public/v1/models; left out: thinker-32b (deprecated))',
    ]);
  });
});

/** Writes 64 KiB chunks as fast as the socket takes them until the client goes away. */
function endless(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"data":["');
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

describe('answers that are too large, too slow or echo the management key', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      if (req.url.startsWith('/slow/')) {
        // Headers, then a byte every 200 ms: never idle long enough for the idle limit alone.
        res.writeHead(200, { 'content-type': 'application/json' });
        const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write(' ')), 200);
        res.on('close', () => clearInterval(tick));
        return;
      }
      if (req.url.startsWith('/management/')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`debug echo ${String(req.headers.authorization).slice('Bearer '.length)} end`);
        return;
      }
      endless(res);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses an answer over the size limit (TARGET_ERROR naming the URL) instead of reading it all', async () => {
    const started = performance.now();
    const big = await failure(
      fetchPublicCatalog({ ...accessTo(server.url, () => '').request, maxBodyBytes: 1024 * 1024 }, 'default'),
    );
    expect(big.code).toBe('TARGET_ERROR');
    expect(big.message).toBe(`GET ${server.url}/public/v1/models answered more than 1048576 bytes`);
    // Stopped at the limit, not at the 5 s time limit.
    expect(performance.now() - started).toBeLessThan(4_000);
    // models: all reads GET /v1/models under the default limit (16 MiB).
    const all = await failure(
      resolveModelSelectors(
        profileOf({ s: 'all' }),
        accessTo(server.url, () => ''),
      ),
    );
    expect(all.code).toBe('TARGET_ERROR');
    expect(all.message).toBe(`models: all (target ${server.url}): GET /v1/models answered more than 16777216 bytes`);
  });

  it('gives up on an answer that trickles past the time limit', async () => {
    const started = performance.now();
    const slow = await failure(
      fetchPublicCatalog({ ...accessTo(`${server.url}/slow`, () => '').request, timeoutMs: 1_000 }, 'default'),
    );
    expect(slow.code).toBe('TARGET_UNREACHABLE');
    expect(slow.message).toContain(`GET ${server.url}/slow/public/v1/models failed:`);
    expect(slow.message).toContain('timeout after 1000 ms');
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('keeps the management key out of the excerpt of an answer that is not JSON', async () => {
    const echoed = await failure(
      resolveModelSelectors(
        profileOf({ s: '{ endpoints_of: acme }' }),
        accessTo(server.url, () => 'mgmt-secret-5150'),
      ),
    );
    expect(echoed.code).toBe('TARGET_ERROR');
    expect(echoed.message).toContain('/management/v1/orgs/acme/endpoints did not answer JSON: "debug echo *** end"');
    expect(echoed.message).not.toContain('mgmt-secret-5150');
  });
});
