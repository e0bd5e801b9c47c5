import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { profileProblems } from '../../helpers/profile-problems.js';

// Every request of a mix is sent as one of its classes, so a class's fields merged over the scenario's
// pass the same cross-field rules as a scenario's (review finding: classes skipped every one of them).
describe('mix classes: the cross-field rules of what is sent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-mix-checks-'));
  writeFileSync(join(dir, 'chat.jsonl'), '{"messages":[{"role":"user","content":"hi"}]}\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses built and spec fields in a class request_extra', () => {
    expect(
      profileProblems(`scenarios:
  - name: s
    duration: 1s
    mix: [{ name: a, weight: 1, request_extra: { messages: [], model: other, stream: false } }]
`),
    ).toEqual([
      'p.yaml:4:50: scenarios[0].mix[0].request_extra.messages: messages is set by the profile (models, prompt, tiers), not by request_extra',
      'p.yaml:4:64: scenarios[0].mix[0].request_extra.model: model is set by the profile (models, prompt, tiers), not by request_extra',
      'p.yaml:4:78: scenarios[0].mix[0].request_extra.stream: stream is a field of the API spec: set it in request, where it is checked',
    ]);
  });

  it("compiles a class's answer schemas", () => {
    const problems = profileProblems(`scenarios:
  - name: s
    duration: 1s
    mix:
      - name: a
        weight: 1
        request:
          response_format: { type: json_schema, json_schema: { name: x, schema: { type: 12 } } }
`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^p\.yaml:8:\d+: scenarios\[0\]\.mix\[0\]\.request\.response_format\.json_schema\.schema: not a JSON Schema answers can be checked against/,
    );
  });

  it('checks prefixes, datasets and tool loops on the merged class fields, naming the class', () => {
    expect(
      profileProblems(
        `scenarios:
  - name: s
    duration: 1s
    prompt: { shared_prefix_tokens: 64 }
    tool_loop: { max_rounds: 1 }
    mix:
      - { name: a, weight: 1, prompt: { prefixes: { groups: 2, tokens: 8 } }, request: { tools: [{ type: function, function: { name: f } }] } }
      - { name: b, weight: 1, prompt: { shared_prefix_tokens: 0, dataset: { path: chat.jsonl, min_output_tokens: 3, sample: without_replacement } }, request: { tools: [{ type: function, function: { name: f } }] } }
      - { name: c, weight: 1 }
`,
        dir,
      ),
    ).toEqual([
      'p.yaml:4:15: scenarios[0].prompt.shared_prefix_tokens: set shared_prefix_tokens (one prefix for every request) or prefixes (N prefix groups), not both; prefixes: { groups: 1, tokens: K } is one shared prefix with a prompt_cache_key (in mix class "a")',
      'p.yaml:5:5: scenarios[0].tool_loop: needs request.tools: a model only calls the tools a request offers (in mix class "c")',
      'p.yaml:8:95: scenarios[0].mix[1].prompt.dataset.min_output_tokens: min_output_tokens filters by the answer length of each entry: it needs output_tokens: dataset',
      'p.yaml:8:125: scenarios[0].mix[1].prompt.dataset.sample: without_replacement does not hold in a mix (entries are drawn by the schedule-wide request index, which the classes share); use cycle or with_replacement, or a scenario of its own',
    ]);
  });

  it('refuses prefixes of the scenario with a dataset of a class', () => {
    expect(
      profileProblems(
        `scenarios:
  - name: s
    duration: 1s
    prompt: { prefixes: { groups: 2, tokens: 8 } }
    mix: [{ name: a, weight: 1 }, { name: d, weight: 1, prompt: { dataset: { path: chat.jsonl } } }]
`,
        dir,
      ),
    ).toEqual([
      'p.yaml:4:15: scenarios[0].prompt.prefixes: prefixes build synthetic prompts; it does not apply with prompt.dataset (use shared_prefix_tokens) (in mix class "d")',
    ]);
  });

  it('reports a problem of the scenario that every class has once, without naming classes', () => {
    expect(
      profileProblems(`scenarios:
  - name: s
    duration: 1s
    request_extra: { model: x }
    mix: [{ name: a, weight: 1 }, { name: b, weight: 2 }]
`),
    ).toEqual([
      'p.yaml:4:22: scenarios[0].request_extra.model: model is set by the profile (models, prompt, tiers), not by request_extra',
    ]);
  });
});
