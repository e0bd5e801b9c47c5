/** The `--config` YAML: extending and replacing the built-in catalog, and errors that name file, line and field. */
import { describe, expect, it } from 'vitest';
import { parseCatalogConfig } from '../../../src/emulator/catalog/config-file.js';
import { BUILTIN_MODELS, builtinCatalog } from '../../../src/emulator/catalog/builtin-catalog.js';
import { CatalogIndex } from '../../../src/emulator/catalog/catalog.js';
import { InferbenchError } from '../../../src/errors.js';

function configError(text: string): InferbenchError {
  try {
    parseCatalogConfig(text, 'emu.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InferbenchError);
    expect((error as InferbenchError).code).toBe('BAD_CONFIG');
    return error as InferbenchError;
  }
  throw new Error('expected the config to be rejected');
}

describe('built-in catalog', () => {
  it('has the five kinds of model and a dedicated endpoint in org local with tens of slots', () => {
    const catalog = builtinCatalog();
    expect(catalog.models.length).toBeGreaterThanOrEqual(5);
    const reasoning = catalog.models.filter((m) => m.reasoning);
    expect(reasoning.map((m) => m.reasoning!.efforts)).toEqual([
      ['low', 'medium', 'high'],
      ['none', 'low', 'medium', 'high'],
    ]);
    expect(reasoning.map((m) => m.reasoning!.defaultEffort)).toEqual(['medium', 'none']);
    expect(reasoning[1]!.reasoning!.formats).not.toContain('raw');
    expect(reasoning[1]!.reasoning!.formats).not.toContain('hidden');
    expect(catalog.models.some((m) => m.capabilities.vision)).toBe(true);
    for (const model of catalog.models) {
      expect(Object.values(model.faults).every((v) => v === 0)).toBe(true);
      expect(Number(model.pricing.prompt)).toBeGreaterThan(0);
    }
    expect(catalog.endpoints[0]!.orgName).toBe('local');
    expect(catalog.endpoints[0]!.capacity.slots).toBeGreaterThanOrEqual(10);
    expect(builtinCatalog('acme').endpoints[0]!.orgName).toBe('acme');
  });

  it('an endpoint id resolves to its architecture with its own id and capacity', () => {
    const index = new CatalogIndex(builtinCatalog());
    const endpoint = builtinCatalog().endpoints[0]!;
    const resolved = index.resolve(endpoint.endpointId)!;
    expect(resolved.dedicated).toBe(true);
    expect(resolved.spec.id).toBe(endpoint.endpointId);
    expect(resolved.spec.capacity).toEqual(endpoint.capacity);
    expect(resolved.spec.limits).toEqual(index.model(endpoint.modelArchId)!.limits);
    expect(index.resolve('large-70b')!.dedicated).toBe(false);
    expect(index.resolve('nope')).toBeUndefined();
  });
});

describe('config file', () => {
  it('extends: a partial entry for a built-in id merges over it, a new model starts from based_on', () => {
    const catalog = parseCatalogConfig(
      [
        'models:',
        '  - id: large-70b',
        '    limits: { requests_per_minute: null }',
        '    faults: { http500: 0.5 }',
        '  - id: my-model',
        '    based_on: reasoner-120b',
        '    pricing: { prompt: "0.000001" }',
        '    capacity: { slots: 3 }',
        'endpoints:',
        '  - endpoint_id: ep-mine',
        '    model_arch_id: my-model',
        '    capacity: { slots: 40 }',
      ].join('\n'),
      'emu.yaml',
    );
    expect(catalog.models).toHaveLength(BUILTIN_MODELS.length + 1);
    const large = catalog.models.find((m) => m.id === 'large-70b')!;
    expect(large.limits.requestsPerMinute).toBeNull();
    expect(large.limits.tokensPerMinute).toBe(1_000_000);
    expect(large.faults.http500).toBe(0.5);
    expect(large.faults.http503).toBe(0);
    const mine = catalog.models.find((m) => m.id === 'my-model')!;
    expect(mine.reasoning?.defaultEffort).toBe('medium');
    expect(mine.pricing).toEqual({ prompt: '0.000001', completion: '0.00000075' });
    expect(mine.capacity.slots).toBe(3);
    expect(mine.capacity.decodeTokensPerS).toBe(160);
    const endpoint = catalog.endpoints.find((e) => e.endpointId === 'ep-mine')!;
    expect(endpoint).toMatchObject({ modelArchId: 'my-model', orgName: 'local' });
    expect(endpoint.capacity.slots).toBe(40);
    expect(catalog.endpoints).toHaveLength(2);
  });

  it('replace_builtin drops the built-in models and endpoints', () => {
    const catalog = parseCatalogConfig('replace_builtin: true\nmodels:\n  - id: only-one\n', 'emu.yaml');
    expect(catalog.models.map((m) => m.id)).toEqual(['only-one']);
    expect(catalog.endpoints).toEqual([]);
  });

  it('a wrong type names the file, line and field', () => {
    const error = configError('models:\n  - id: x\n    capacity:\n      slots: many\n');
    expect(error.message).toContain('emu.yaml:4: models.0.capacity.slots');
  });

  it('an unknown key is an error at its own line', () => {
    const error = configError('models:\n  - id: x\n    nmae: typo\n');
    expect(error.message).toMatch(/emu\.yaml:3: models\.0\.nmae: .*nmae/);
  });

  it('a YAML syntax error names the line', () => {
    const error = configError('models:\n  - id: [unclosed\n');
    expect(error.message).toMatch(/emu\.yaml:\d+:\d+:/);
  });

  it('an endpoint of an unknown model, and an empty catalog, are errors', () => {
    expect(configError('endpoints:\n  - endpoint_id: e\n    model_arch_id: ghost\n').message).toContain(
      'emu.yaml:3: endpoints.0.model_arch_id: unknown model "ghost"',
    );
    expect(configError('replace_builtin: true\n').message).toContain('no models');
  });

  it('pricing must be a decimal string and rates within 0..1', () => {
    expect(configError('models:\n  - id: x\n    pricing: { prompt: 0.1 }\n').message).toContain(
      'emu.yaml:3: models.0.pricing.prompt',
    );
    expect(configError('models:\n  - id: x\n    faults:\n      reset: 2\n').message).toContain(
      'emu.yaml:4: models.0.faults.reset',
    );
  });
});

describe('docs/emulator.md', () => {
  it('the config example of the emulator page parses', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../../docs/emulator.md', import.meta.url), 'utf8');
    const section = page.slice(0, page.indexOf('## Limits and timeouts'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBeDefined();
    const catalog = parseCatalogConfig(example!, 'docs/emulator.md');
    expect(catalog.models.find((m) => m.id === 'my-model')?.capacity.slots).toBe(16);
    expect(catalog.endpoints.map((e) => e.endpointId)).toContain('ep-my-model');
  });
});
