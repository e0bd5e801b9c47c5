/**
 * `api:` of a scenario: chat by default (and then absent from the resolved scenario, so hashes stay),
 * completions resolved; an unknown API, and every workload feature completions
 * cannot carry refused with the file, line and field.
 */
import { describe, expect, it } from 'vitest';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { bodyShape } from '../../../src/workload/apis/api-bodies.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const scenario = (extra: string): string => `scenarios:
  - name: s
    requests: 1
    models: [m]
${extra}`;

describe('api', () => {
  it('is chat by default and resolves completions, from the scenario or defaults; the hash tells them apart', () => {
    const chat = resolveProfileText(scenario(''), 'p.yaml');
    expect(chat.scenarios[0]?.api).toBeUndefined();
    const explicitChat = resolveProfileText(scenario('    api: chat\n'), 'p.yaml');
    expect(explicitChat.scenarios[0]?.api).toBeUndefined();
    expect(workloadHash(explicitChat)).toBe(workloadHash(chat));
    const completions = resolveProfileText(scenario('    api: completions\n'), 'p.yaml');
    expect(completions.scenarios[0]?.api).toBe('completions');
    expect(workloadHash(completions)).not.toBe(workloadHash(chat));
    const fromDefaults = resolveProfileText(`defaults: { api: completions }\n${scenario('')}`, 'p.yaml');
    expect(fromDefaults.scenarios[0]?.api).toBe('completions');
    // validate's plan says it; a chat plan reads as before.
    expect(formatProfilePlan(completions)).toContain(
      '  api        completions (POST /v1/completions; see docs/apis.md)\n',
    );
    expect(formatProfilePlan(chat)).not.toContain('  api ');
    expect(formatProfilePlan(completions)).toContain(
      '\n  the embedded emulator serves only chat completions: run needs --base-url for api: completions\n',
    );
  });

  it("shows in validate's plan the request fields as each API sends them", () => {
    const plan = formatProfilePlan(
      resolveProfileText(
        `scenarios:
  - { name: c, models: [m], requests: 1, request: { temperature: 0.5, stop: ["x"] } }
  - { name: e, api: embeddings, models: [m], requests: 1 }
  - { name: m, api: messages, models: [m], requests: 1, request: { temperature: 0.5, stop: ["x"] } }
  - { name: o, api: messages, models: [m], requests: 1, prompt: { input_tokens: 8, output_tokens: 16 } }
`,
        'p.yaml',
      ),
      bodyShape,
    );
    const requestRows = plan.split('\n').filter((line) => line.startsWith('  request '));
    expect(requestRows).toEqual([
      // chat: the request fields as before.
      '  request    {"stream":true,"stop":["x"],"temperature":0.5,"stream_options":{"include_usage":true}}',
      // An embeddings request is never streamed, whatever the scenario's defaults.
      '  request    {"input":"<prompt>","encoding_format":"float"} (the embeddings body, the workload\'s prompt and output length in place of "<prompt>" and "<output>")',
      // Messages: no stream_options, stop as stop_sequences, Anthropic's required max_tokens.
      '  request    {"stream":true,"temperature":0.5,"messages":[{"role":"user","content":"<prompt>"}],"max_tokens":4096,"stop_sequences":["x"]} (the messages body, the workload\'s prompt and output length in place of "<prompt>" and "<output>")',
      // An output length set: each request's, as max_tokens (Anthropic's default of 4096 only without one).
      '  request    {"stream":true,"messages":[{"role":"user","content":"<prompt>"}],"max_tokens":"<output>"} (the messages body, the workload\'s prompt and output length in place of "<prompt>" and "<output>")',
    ]);
  });

  it('refuses an unknown api, naming line and field', () => {
    // An unknown API is refused with the list.
    expect(profileProblems(scenario('    api: chat_completions\n'))).toEqual([
      'p.yaml:5:10: scenarios[0].api: "chat_completions" is not an api; expected one of chat, completions, responses, embeddings, messages',
    ]);
  });

  it('refuses with completions each feature that cannot be expressed as one prompt text', () => {
    const problems = profileProblems(
      scenario(`    api: completions
    prompt: { system: "be brief", images: [{ width: 64, height: 64 }] }
    session: { turns: 2 }
    request:
      response_format: { type: json_object }
      tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
      tool_choice: auto
      reasoning_effort: low
      logprobs: true
`),
    );
    expect(problems).toEqual([
      'p.yaml:6:15: scenarios[0].prompt.system: api: completions: a completions prompt is one text with no roles: put the text in the dataset, or use api: chat',
      'p.yaml:6:35: scenarios[0].prompt.images: api: completions: the completions API takes no images: use api: chat',
      'p.yaml:7:5: scenarios[0].session: api: completions: a completions prompt is one text with no roles: multi-turn sessions need api: chat',
      'p.yaml:9:7: scenarios[0].request.response_format: api: completions: the completions API has no response_format (answers cannot be checked against a schema)',
      'p.yaml:10:7: scenarios[0].request.tools: api: completions: the completions API has no tools',
      'p.yaml:11:7: scenarios[0].request.tool_choice: api: completions: the completions API has no tools',
      'p.yaml:12:7: scenarios[0].request.reasoning_effort: api: completions: the completions API has no reasoning_effort',
      "p.yaml:13:7: scenarios[0].request.logprobs: api: completions: the completions API's logprobs is a count, not chat's boolean: set request_extra.logprobs",
    ]);
  });

  it('refuses a tool loop and reasoning_efforts with completions, and in a mix class names the class', () => {
    expect(
      profileProblems(
        scenario(`    api: completions
    reasoning_efforts: [low, high]
`),
      ),
    ).toEqual([
      'p.yaml:6:5: scenarios[0].reasoning_efforts: api: completions: the completions API has no reasoning_effort',
    ]);
    const mixed = profileProblems(
      scenario(`    api: completions
    mix:
      - { name: plain, weight: 1 }
      - { name: sys, weight: 1, prompt: { system: hi } }
`),
    );
    expect(mixed).toHaveLength(1);
    expect(mixed[0]).toMatch(
      /^p\.yaml:8:\d+: scenarios\[0\]\.mix\[1\]\.prompt\.system: api: completions: a completions prompt/,
    );
  });

  it('resolves responses, carrying roles, images, sessions, tool loops, tools, schemas and reasoning effort', () => {
    const profile = resolveProfileText(
      scenario(`    api: responses
    prompt: { system: "be brief", images: [{ width: 64, height: 64 }] }
    session: { turns: 2 }
    tool_loop: { max_rounds: 2 }
    reasoning_efforts: [low, high]
    request:
      response_format: { type: json_object }
      tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
      tool_choice: auto
      top_logprobs: 2
`),
      'p.yaml',
    );
    expect(profile.scenarios[0]?.api).toBe('responses');
    expect(formatProfilePlan(profile)).toContain('  api        responses (POST /v1/responses; see docs/apis.md)\n');
  });

  it('refuses with responses the chat fields it has no counterpart for', () => {
    expect(
      profileProblems(
        scenario(`    api: responses
    request:
      frequency_penalty: 0.5
      presence_penalty: 0.5
      logit_bias: { "1": 2 }
      stop: [x]
      seed: 1
      prediction: { type: content, content: x }
      logprobs: true
      stream_options: { include_usage: true }
`),
      ),
    ).toEqual([
      'p.yaml:7:7: scenarios[0].request.frequency_penalty: api: responses: the Responses API has no frequency_penalty: use api: chat, or request_extra for a server that takes it',
      'p.yaml:8:7: scenarios[0].request.presence_penalty: api: responses: the Responses API has no presence_penalty: use api: chat, or request_extra for a server that takes it',
      'p.yaml:9:7: scenarios[0].request.logit_bias: api: responses: the Responses API has no logit_bias: use api: chat, or request_extra for a server that takes it',
      'p.yaml:10:7: scenarios[0].request.stop: api: responses: the Responses API has no stop: use api: chat, or request_extra for a server that takes it',
      'p.yaml:11:7: scenarios[0].request.seed: api: responses: the Responses API has no seed: use api: chat, or request_extra for a server that takes it',
      'p.yaml:12:7: scenarios[0].request.prediction: api: responses: the Responses API has no prediction: use api: chat, or request_extra for a server that takes it',
      'p.yaml:13:7: scenarios[0].request.logprobs: api: responses: the Responses API has no logprobs flag: set top_logprobs and request_extra.include: [message.output_text.logprobs]',
      "p.yaml:14:7: scenarios[0].request.stream_options: api: responses: a Responses stream always carries usage (in response.completed); chat's stream_options is not its own",
    ]);
  });
});
