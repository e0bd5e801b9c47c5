/**
 * Models from the target, end to end through the CLI: `models: all`, `{ capability: reasoning }` and
 * `{ endpoints_of: local }` against the embedded emulator make exactly the groups of its built-in catalog;
 * against a vLLM-like server (no public catalog) `all` works and `capability` fails clearly (exit 3);
 * a selector that selects nothing exits 3; `capacity` searches each selected model; the management key
 * comes from the environment only and never appears in any output; `catalog --base-url` prints what a
 * service serves in all three formats; `validate` and `k8s` with selectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCatalog, builtinEndpoints } from '../../src/emulator/catalog/builtin-catalog.js';
import { runCliInProcess } from '../helpers/cli.js';
import { createEmulator, type Emulator } from '../../src/emulator/emulator.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import { startVllmLikeServer, VLLM_MODEL, type VllmLikeServer } from '../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-models-from-target-');
const MANAGEMENT_KEY = 'mgmt-secret-7f3a9c-do-not-print';
const API_KEY = 'api-secret-2b8e41';

const ALL_IDS = builtinCatalog()
  .models.map((model) => model.id)
  .sort();
const REASONING_IDS = builtinCatalog()
  .models.filter((model) => model.capabilities.reasoning)
  .map((model) => model.id)
  .sort();
const ENDPOINT_IDS = builtinEndpoints('local').map((endpoint) => endpoint.endpointId);

/** A tiny scenario per selector: one request each, short prompts and answers. */
const selectorProfile = (target: string, scenarios: Record<string, string>): string =>
  `name: selectors
${target}defaults:
  requests: 1
  prompt: { input_tokens: 16, output_tokens: 4 }
scenarios:
${Object.entries(scenarios)
  .map(([name, models]) => `  - name: ${name}\n    models: ${models}\n`)
  .join('')}`;

const groupKeys = (out: string): string[] => readSummary(out).groups.map((group) => group.key);

/** An emulator (in this process) with a management key and an org of its own, shared by the tests below. */
let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ managementKeys: [MANAGEMENT_KEY], org: 'acme' });
});
afterAll(async () => {
  await emulator.close();
});

describe('selectors against the embedded emulator', () => {
  it('makes one group per selected model, sorted by id, exactly the built-in catalog`s', async () => {
    const profile = folder.writeProfile(
      'embedded',
      selectorProfile('', { all: 'all', think: '{ capability: reasoning }', mine: '{ endpoints_of: local }' }),
    );
    const out = `${folder.dir}/embedded-run`;
    // No management key in the environment: the embedded emulator's throwaway key is used.
    const result = await runCliInProcess(['run', profile, '--out', out], { cwd: folder.dir });
    expect(result.stderr).toContain(`inferbench: models: all -> ${ALL_IDS.join(', ')} (GET /v1/models)`);
    expect(result.code).toBe(0);
    expect(groupKeys(out)).toEqual([
      ...ALL_IDS.map((id) => `all/${id}/-`),
      ...REASONING_IDS.map((id) => `think/${id}/-`),
      ...ENDPOINT_IDS.map((id) => `mine/${id}/-`),
    ]);
    expect(REASONING_IDS).toEqual(['reasoner-120b', 'thinker-32b']);
    expect(ENDPOINT_IDS).toEqual(['ep-large-70b-dedicated']);
    for (const group of readSummary(out).groups) expect(group.requests.ok).toBe(1);
  });
});

describe('a selector that selects nothing', () => {
  it('stops with exit 3 naming the selector and the target', async () => {
    const profile = folder.writeProfile('none', selectorProfile('', { s: '{ capability: [vision, reasoning] }' }));
    const result = await runCliInProcess(
      ['run', profile, '--base-url', emulator.url, '--out', `${folder.dir}/none-run`],
      { cwd: folder.dir, env: { INFERENCE_API_KEY: API_KEY } },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `models: { capability: [vision, reasoning] } selects no model of ${emulator.url} (the public catalog, GET /public/v1/models)`,
    );
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('capacity with a selector', () => {
  // A real search of two steps of seconds each: slow on purpose (npm test runs it, test:fast does not).
  it('searches each selected model as a listed one', { tags: ['slow'] }, async () => {
    const profile = folder.writeProfile(
      'capacity',
      `name: capacity-selector
scenarios:
  - name: chat
    models: { capability: vision }
    load: { mode: rate, rate: 4 }
    duration: 2s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity: { slo: { ttft_ms.p50: 2000ms }, start: 8, max_steps: 2, max_step_duration: 3s, step_warmup: 0s }
`,
    );
    const out = `${folder.dir}/capacity-run`;
    const result = await runCliInProcess(['capacity', profile, '--base-url', emulator.url, '--out', out, '--quiet'], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(0);
    const vision = builtinCatalog()
      .models.filter((model) => model.capabilities.vision)
      .map((model) => `chat/${model.id}/-`);
    expect(vision).toEqual(['chat/vision-17b/-']);
    expect(groupKeys(out)).toEqual(vision);
  });
});

describe('against a vLLM-like server without a public catalog', () => {
  let server: VllmLikeServer;
  beforeAll(async () => {
    server = await startVllmLikeServer({ tokens: 3 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs models: all on what GET /v1/models lists', async () => {
    const profile = folder.writeProfile('vllm-all', selectorProfile('', { s: 'all' }));
    const out = `${folder.dir}/vllm-all-run`;
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out, '--quiet'], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(0);
    expect(groupKeys(out)).toEqual([`s/${VLLM_MODEL}/-`]);
  });

  it('refuses models: { capability } with the catalog URL and its status (exit 3)', async () => {
    const profile = folder.writeProfile('vllm-cap', selectorProfile('', { s: '{ capability: tools }' }));
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', `${folder.dir}/x`], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `inferbench: models: { capability: tools } (target ${server.url}): GET ${server.url}/public/v1/models answered 404`,
    );
    expect(result.stderr).toContain('hint: this target serves no public catalog there');
  });
});

describe('against an emulator with a management key and its own org', () => {
  it('reads the management key from the environment only (target.management_key_env)', async () => {
    const profile = folder.writeProfile(
      'acme',
      selectorProfile(`target: { base_url: ${emulator.url}, management_key_env: ACME_MGMT }\n`, {
        s: '{ endpoints_of: acme }',
      }),
    );
    const out = `${folder.dir}/acme-run`;
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY, ACME_MGMT: MANAGEMENT_KEY },
    });
    expect(result.code).toBe(0);
    expect(groupKeys(out)).toEqual(['s/ep-large-70b-dedicated/-']);
    expect(result.stdout + result.stderr).not.toContain(MANAGEMENT_KEY);
  });

  it('says which variable is missing before sending anything (exit 2)', async () => {
    const profile = folder.writeProfile(
      'nokey',
      selectorProfile(`target: { base_url: ${emulator.url} }\n`, { s: '{ endpoints_of: acme }' }),
    );
    const result = await runCliInProcess(['run', profile, '--out', `${folder.dir}/y`], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'models: { endpoints_of: acme } needs a management key in the environment variable INFERENCE_MANAGEMENT_KEY, which is not set',
    );
  });

  it('names the URL and status of a refused key, never the key', async () => {
    const wrong = 'wrong-mgmt-key-55d1e0';
    const profile = folder.writeProfile(
      'wrongkey',
      selectorProfile(`target: { base_url: ${emulator.url} }\n`, { s: '{ endpoints_of: acme }' }),
    );
    const result = await runCliInProcess(['run', profile, '--out', `${folder.dir}/z`], {
      cwd: folder.dir,
      env: { INFERENCE_API_KEY: API_KEY, INFERENCE_MANAGEMENT_KEY: wrong },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`GET ${emulator.url}/management/v1/orgs/acme/endpoints answered 401`);
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  });

  it('catalog --base-url prints what the service serves, in all three formats', async () => {
    for (const format of ['default', 'router', 'hub']) {
      const served = (await (
        await fetch(`${emulator.url}/public/v1/models${format === 'default' ? '' : `?format=${format}`}`)
      ).json()) as unknown;
      const remote = await runCliInProcess(['catalog', '--base-url', `${emulator.url}/v1`, '--format', format]);
      expect(remote.code).toBe(0);
      expect(JSON.parse(remote.stdout)).toEqual(served);
      // The same as the emulator's own catalog, printed the same way.
      const own = await runCliInProcess(['catalog', '--format', format]);
      expect(remote.stdout).toBe(own.stdout);
    }
  });

  it('catalog --base-url: unreachable, an error answer and not JSON exit 3 with the URL', async () => {
    const refused = await runCliInProcess(['catalog', '--base-url', 'http://127.0.0.1:1']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('GET http://127.0.0.1:1/public/v1/models failed: ECONNREFUSED');
    const missing = await runCliInProcess(['catalog', '--base-url', `${emulator.url}/nowhere`]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`GET ${emulator.url}/nowhere/public/v1/models answered 404`);
    expect(missing.stdout).toBe('');
  });
});

describe('commands that send nothing', () => {
  it('validate prints the selector and says it resolves at run time', async () => {
    const profile = folder.writeProfile('validate', selectorProfile('', { s: '{ capability: [reasoning, tools] }' }));
    const result = await runCliInProcess(['validate', profile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  models     { capability: [reasoning, tools] }: resolved at run time from the public catalog, GET /public/v1/models',
    );
    expect(result.stdout).toContain('valid: 1 scenario, 1 group before the models: selectors resolve at run time');
  });

  it('k8s refuses endpoints_of against a real target and notes that shards resolve all', async () => {
    const managed = folder.writeProfile(
      'k8s-managed',
      selectorProfile('target: { base_url: https://api.example.com }\n', { s: '{ endpoints_of: acme }' }),
    );
    const refused = await runCliInProcess(['k8s', managed, '--shards', '2', '--image', 'inferbench:dev']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('models: { endpoints_of: acme } needs the management key in every pod');
    const all = folder.writeProfile(
      'k8s-all',
      selectorProfile('target: { base_url: https://api.example.com }\n', { s: 'all' }),
    );
    const printed = await runCliInProcess(['k8s', all, '--shards', '2', '--image', 'inferbench:dev']);
    expect(printed.code).toBe(0);
    expect(printed.stderr).toContain('each shard resolves models: all from the target when it starts');
    expect(printed.stdout).toContain('kind: Job');
  });
});
