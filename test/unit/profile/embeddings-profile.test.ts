/**
 * `api: embeddings` in a profile: resolved with inputs_per_request (absent when one: hashes stay), the
 * generation features it cannot carry refused each at its field, inputs_per_request refused for an API
 * that sends one prompt, and a bad count refused.
 */
import { describe, expect, it } from 'vitest';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const scenario = (extra: string): string => `scenarios:
  - name: s
    requests: 1
    models: [m]
${extra}`;

describe('api: embeddings', () => {
  it('resolves inputs_per_request, absent when one; the hash tells the batch sizes apart', () => {
    const one = resolveProfileText(scenario('    api: embeddings\n'), 'p.yaml');
    expect(one.scenarios[0]?.api).toBe('embeddings');
    expect(one.scenarios[0]?.inputsPerRequest).toBeUndefined();
    const explicitOne = resolveProfileText(scenario('    api: embeddings\n    inputs_per_request: 1\n'), 'p.yaml');
    expect(workloadHash(explicitOne)).toBe(workloadHash(one));
    const four = resolveProfileText(scenario('    api: embeddings\n    inputs_per_request: 4\n'), 'p.yaml');
    expect(four.scenarios[0]?.inputsPerRequest).toBe(4);
    expect(workloadHash(four)).not.toBe(workloadHash(one));
    // validate's plan says it.
    expect(formatProfilePlan(four)).toContain(
      '  api        embeddings (POST /v1/embeddings; 4 inputs per request; see docs/apis.md)\n',
    );
    expect(formatProfilePlan(one)).toContain('  api        embeddings (POST /v1/embeddings; see docs/apis.md)\n');
    // request_extra (dimensions) and request.user and stream: false are what an embeddings body carries.
    expect(() =>
      resolveProfileText(
        scenario(
          '    api: embeddings\n    request: { user: u1, stream: false }\n    request_extra: { dimensions: 256 }\n',
        ),
        'p.yaml',
      ),
    ).not.toThrow();
  });

  it('refuses each generation feature at its field', () => {
    const problems = profileProblems(
      scenario(`    api: embeddings
    tiers: [flex]
    prompt: { system: "be brief", output_tokens: 64 }
    session: { turns: 2 }
    request:
      stream: true
      max_completion_tokens: 10
      temperature: 0
      response_format: { type: json_object }
      tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
      reasoning_effort: low
      stop: ["x"]
`),
    );
    const generates = 'api: embeddings: the embeddings API generates no text';
    const body = `${generates}: its body is { model, input, encoding_format, dimensions, user } (dimensions in request_extra)`;
    // In the order of the file's lines.
    expect(problems).toEqual([
      'p.yaml:6:5: scenarios[0].tiers: api: embeddings: the embeddings API has no service_tier',
      'p.yaml:7:15: scenarios[0].prompt.system: api: embeddings: an embeddings input is text with no roles: put the text in the dataset',
      `p.yaml:7:35: scenarios[0].prompt.output_tokens: ${generates}: it has no max tokens`,
      `p.yaml:8:5: scenarios[0].session: ${generates}: a session needs its answers`,
      'p.yaml:10:7: scenarios[0].request.stream: api: embeddings: the embeddings API is not streamed: stream must be false or omitted',
      `p.yaml:11:7: scenarios[0].request.max_completion_tokens: ${body}`,
      `p.yaml:12:7: scenarios[0].request.temperature: ${body}`,
      `p.yaml:13:7: scenarios[0].request.response_format: ${body}`,
      `p.yaml:14:7: scenarios[0].request.tools: ${body}`,
      `p.yaml:15:7: scenarios[0].request.reasoning_effort: ${body}`,
      `p.yaml:16:7: scenarios[0].request.stop: ${body}`,
    ]);
  });

  it('refuses inputs_per_request for an API that sends one prompt, and a count that is not whole and positive', () => {
    expect(profileProblems(scenario('    inputs_per_request: 4\n'))).toEqual([
      'p.yaml:5:5: scenarios[0].inputs_per_request: api: chat sends one prompt per request; inputs_per_request needs api: embeddings',
    ]);
    expect(profileProblems(scenario('    api: completions\n    inputs_per_request: 2\n'))[0]).toContain(
      'api: completions sends one prompt per request',
    );
    // A trace replays one request per record (its file's problems aside).
    expect(
      profileProblems(
        scenario('    api: embeddings\n    inputs_per_request: 2\n    load: { mode: trace, path: t.jsonl }\n'),
      ),
    ).toContain(
      'p.yaml:6:5: scenarios[0].inputs_per_request: a trace replays one request per record: inputs_per_request needs another load mode',
    );
    expect(profileProblems(scenario('    api: embeddings\n    inputs_per_request: 0\n'))).toEqual([
      'p.yaml:6:25: scenarios[0].inputs_per_request: expected a whole number of inputs (>= 1)',
    ]);
  });
});
