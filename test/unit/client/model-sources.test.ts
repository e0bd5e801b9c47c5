/**
 * What the readers of `models:` selectors make of the target's answers: the capabilities of every model
 * in each public catalog format the emulator serves (default and hub: the capabilities object; router: its
 * supported_features and input_modalities), and which managed endpoints can take requests.
 */
import { describe, expect, it } from 'vitest';
import { catalogCapabilities, publicCatalogPath } from '../../../src/client/public-catalog.js';
import { servingEndpoints } from '../../../src/client/management-endpoints.js';
import { builtinCatalog } from '../../../src/emulator/catalog/builtin-catalog.js';
import { publicCatalog } from '../../../src/emulator/catalog/public-formats.js';

const models = builtinCatalog().models;
const withCapability = (name: 'reasoning' | 'vision'): string[] =>
  models.filter((model) => model.capabilities[name]).map((model) => model.id);

describe('catalogCapabilities', () => {
  it('reads the capabilities object of the default and hub formats', () => {
    for (const format of ['default', 'hub'] as const) {
      const capabilities = catalogCapabilities(publicCatalog(models, format));
      expect([...capabilities.keys()]).toEqual(models.map((model) => model.id));
      expect([...capabilities].filter(([, has]) => has.has('reasoning')).map(([id]) => id)).toEqual(
        withCapability('reasoning'),
      );
      expect(capabilities.get('reasoner-120b')?.has('vision')).toBe(false);
      expect(capabilities.get('vision-17b')?.has('streaming')).toBe(true);
    }
    // Sanity: the built-in catalog has models on both sides of each.
    expect(withCapability('reasoning')).toEqual(['reasoner-120b', 'thinker-32b']);
  });

  it('reads the router format`s features and image input', () => {
    const capabilities = catalogCapabilities(publicCatalog(models, 'router'));
    expect([...capabilities].filter(([, has]) => has.has('vision')).map(([id]) => id)).toEqual(
      withCapability('vision'),
    );
    expect(capabilities.get('thinker-32b')?.has('reasoning')).toBe(true);
    expect(capabilities.get('small-fast-8b')?.has('reasoning')).toBe(false);
  });

  it('ignores what is no model, unknown names and non-true values', () => {
    const capabilities = catalogCapabilities({
      data: [
        null,
        { id: 7 },
        { id: 'm', capabilities: { reasoning: 'yes', vision: true, telepathy: true } },
        { id: 'r', supported_features: ['tools', 42, 'teleport'] },
        { id: 'plain', object: 'model', owned_by: 'vllm' },
      ],
    });
    // A model without either field says nothing about capabilities: left out, not "has none".
    expect([...capabilities.keys()]).toEqual(['m', 'r']);
    expect([...(capabilities.get('m') ?? [])]).toEqual(['vision']);
    expect([...(capabilities.get('r') ?? [])]).toEqual(['tools']);
    expect(catalogCapabilities({ object: 'list' }).size).toBe(0);
  });

  it('asks the spec`s path for each format', () => {
    expect(publicCatalogPath('default')).toBe('/public/v1/models');
    expect(publicCatalogPath('router')).toBe('/public/v1/models?format=router');
    expect(publicCatalogPath('hub')).toBe('/public/v1/models?format=hub');
  });
});

describe('servingEndpoints', () => {
  it('keeps every endpoint of a listing without states (the spec lists none)', () => {
    expect(
      servingEndpoints([
        { endpoint_id: 'ep-a', model_arch_id: 'x', created: 0, updated: 0, org_name: 'o' },
        { endpoint_id: 'ep-b' },
        { model_arch_id: 'no id' },
      ]),
    ).toEqual({ ids: ['ep-a', 'ep-b'], skipped: [] });
  });

  it('leaves out endpoints whose stated state takes no requests, and says which', () => {
    expect(
      servingEndpoints([
        { endpoint_id: 'ep-ready', state: 'READY' },
        { endpoint_id: 'ep-stopped', state: 'stopped' },
        { endpoint_id: 'ep-running', status: 'running' },
        { endpoint_id: 'ep-creating', status: 'creating' },
      ]),
    ).toEqual({ ids: ['ep-ready', 'ep-running'], skipped: ['ep-stopped (stopped)', 'ep-creating (creating)'] });
  });
});
