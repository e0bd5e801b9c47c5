/**
 * `models:` besides a list of ids: `all`, `{ capability }` and `{ endpoints_of }` (scenario field and in
 * defaults), resolved into the scenario's modelSelector with groups "*" until the run asks the target;
 * misspelt capabilities and keys refused with file, line, field and the closest name; the selected ids
 * become groups exactly as listed ids would (sorted by id, so every shard makes the same groups).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import {
  formatModelSelector,
  hasUnresolvedSelector,
  withSelectedModels,
} from '../../../src/profile/sections/models.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const profileWith = (models: string, target = ''): string => `name: m
${target}scenarios:
  - name: s
    models: ${models}
    tiers: [flex, default]
    requests: 1
`;

describe('models: selectors in a profile', () => {
  it('resolves each form into its selector, with no models and "*" groups until the run', () => {
    const cases = [
      ['all', { kind: 'all' }],
      ['{ capability: reasoning }', { kind: 'capability', capabilities: ['reasoning'] }],
      ['{ capability: [reasoning, vision, reasoning] }', { kind: 'capability', capabilities: ['reasoning', 'vision'] }],
      ['{ endpoints_of: acme-prod }', { kind: 'endpoints_of', org: 'acme-prod' }],
    ] as const;
    for (const [text, selector] of cases) {
      const profile = resolveProfileText(profileWith(text), '/x/p.yaml');
      expect(profile.scenarios[0]!.modelSelector).toEqual(selector);
      expect(profile.scenarios[0]!.models).toEqual([]);
      expect(profile.groups.map((g) => g.key)).toEqual(['s/*/flex', 's/*/default']);
      expect(hasUnresolvedSelector(profile)).toBe(true);
    }
  });

  it('takes a selector from defaults, and a scenario list wins over it', () => {
    const profile = resolveProfileText(
      `defaults: { models: all, requests: 1 }
scenarios:
  - name: a
  - name: b
    models: [m-1]
`,
      '/x/p.yaml',
    );
    expect(profile.scenarios[0]!.modelSelector).toEqual({ kind: 'all' });
    expect(profile.scenarios[1]!.modelSelector).toBeUndefined();
    expect(profile.scenarios[1]!.models).toEqual(['m-1']);
  });

  it('leaves a list of ids as it was (no selector)', () => {
    const profile = resolveProfileText(profileWith('[b-model, a-model]'), '/x/p.yaml');
    expect(profile.scenarios[0]!.modelSelector).toBeUndefined();
    expect(profile.groups.map((g) => g.key)).toEqual([
      's/b-model/flex',
      's/b-model/default',
      's/a-model/flex',
      's/a-model/default',
    ]);
  });

  it('reads target.management_key_env, default INFERENCE_MANAGEMENT_KEY', () => {
    expect(resolveProfileText(profileWith('all'), '/x/p.yaml').target.managementKeyEnv).toBe(
      'INFERENCE_MANAGEMENT_KEY',
    );
    const custom = profileWith(
      '{ endpoints_of: acme }',
      'target: { base_url: http://h, management_key_env: ACME_MGMT }\n',
    );
    expect(resolveProfileText(custom, '/x/p.yaml').target.managementKeyEnv).toBe('ACME_MGMT');
  });
});

describe('models: errors with file, line and field', () => {
  it('names the closest capability to a misspelt one', () => {
    expect(profileProblems(profileWith('{ capability: [reasoning, vison] }'))).toEqual([
      'p.yaml:4:39: scenarios[0].models.capability[1]: "vison" is not a capability of the public catalog (did you mean "vision"?); expected one of streaming, function_calling, structured_outputs, vision, json_mode, tools, tool_choice, parallel_tool_calls, response_format, reasoning',
    ]);
    expect(profileProblems(profileWith('{ capability: reasonig }'))[0]).toContain(
      'p.yaml:4:27: scenarios[0].models.capability: "reasonig" is not a capability of the public catalog (did you mean "reasoning"?)',
    );
  });

  it('suggests the selector key for a misspelt one', () => {
    expect(profileProblems(profileWith('{ endpoint_of: acme }'))).toContain(
      'p.yaml:4:15: scenarios[0].models.endpoint_of: unknown key (did you mean "endpoints_of"?)',
    );
  });

  it('refuses another word than all, both selectors at once, and an org with a slash', () => {
    expect(profileProblems(profileWith('everything'))).toEqual([
      'p.yaml:4:13: scenarios[0].models: expected a list of model ids, "all", { capability: NAME | [NAMES] } or { endpoints_of: ORG }',
    ]);
    expect(profileProblems(profileWith('{ capability: tools, endpoints_of: acme }'))).toEqual([
      'p.yaml:4:13: scenarios[0].models: expected one of { capability: NAME | [NAMES] } or { endpoints_of: ORG }',
    ]);
    expect(profileProblems(profileWith('{ endpoints_of: a/b }'))[0]).toContain(
      'scenarios[0].models.endpoints_of: expected an organization name',
    );
    expect(profileProblems(profileWith('{ capability: [] }'))[0]).toContain('scenarios[0].models.capability');
  });

  it('refuses a key value in management_key_env', () => {
    expect(
      profileProblems(profileWith('all', 'target: { base_url: http://h, management_key_env: "sk-123-abc" }\n'))[0],
    ).toContain('target.management_key_env: expected the NAME of an environment variable');
  });
});

describe('selected models become groups', () => {
  const profile = resolveProfileText(
    `scenarios:
  - name: a
    models: all
    requests: 1
  - name: b
    models: { capability: reasoning }
    requests: 1
  - name: c
    requests: 1
`,
    '/x/p.yaml',
  );

  it('sorts each selector`s ids and keys the groups as listed ids would be', () => {
    const selected = withSelectedModels(profile, (selector) =>
      selector.kind === 'all' ? ['zeta', 'alpha', 'zeta'] : ['thinker', 'reasoner'],
    );
    expect(selected.scenarios[0]!.models).toEqual(['alpha', 'zeta']);
    expect(selected.groups.map((g) => g.key)).toEqual([
      'a/alpha/-',
      'a/zeta/-',
      'b/reasoner/-',
      'b/thinker/-',
      'c/*/-',
    ]);
    expect(selected.groups.map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
    expect(hasUnresolvedSelector(selected)).toBe(false);
    expect(Object.isFrozen(selected.scenarios[0]!.models)).toBe(true);
    // The input is left alone.
    expect(profile.scenarios[0]!.models).toEqual([]);
  });

  it('never gives a selector scenario the target`s first model', () => {
    const first = resolveGroupModels(profile, 'first-model');
    expect(first.groups.map((g) => g.key)).toEqual(['a/*/-', 'b/*/-', 'c/first-model/-']);
  });

  it('describes selectors as written, and the plan says they resolve at run time', () => {
    expect(formatModelSelector({ kind: 'all' })).toBe('all');
    expect(formatModelSelector({ kind: 'capability', capabilities: ['reasoning', 'vision'] })).toBe(
      '{ capability: [reasoning, vision] }',
    );
    expect(formatModelSelector({ kind: 'endpoints_of', org: 'acme' })).toBe('{ endpoints_of: acme }');
    const plan = formatProfilePlan(profile);
    expect(plan).toContain('scenario a (models: all x no tier: a group per model and tier)');
    expect(plan).toContain('  models     all: resolved at run time from GET /v1/models;');
    expect(plan).toContain(
      '  models     { capability: reasoning }: resolved at run time from the public catalog, GET /public/v1/models;',
    );
  });
});
