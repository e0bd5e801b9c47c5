/**
 * `api: messages` (Anthropic) in a profile: resolved, with what it carries accepted (system prompt,
 * images, tools, tool_choice, stop, request_extra) and each OpenAI-only feature refused at its own field
 * with the reason, from the scenario or a mix class.
 */
import { describe, expect, it } from 'vitest';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const scenario = (extra: string): string => `scenarios:
  - name: s
    requests: 1
    models: [m]
${extra}`;

describe('api: messages', () => {
  it('resolves, carrying a system prompt, images, tools, tool_choice, stop, request_extra, a session and a tool loop', () => {
    const profile = resolveProfileText(
      scenario(`    api: messages
    prompt: { input_tokens: 16, output_tokens: 8, system: "be brief", images: [{ width: 32, height: 32 }] }
    request:
      stop: ["END"]
      tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
      tool_choice: auto
      parallel_tool_calls: false
    request_extra: { top_k: 5, thinking: { type: enabled, budget_tokens: 1024 } }
    session: { turns: 2 }
    tool_loop: { max_rounds: 2 }
`),
      'p.yaml',
    );
    expect(profile.scenarios[0]?.api).toBe('messages');
    expect(formatProfilePlan(profile)).toContain('  api        messages (POST /v1/messages; see docs/apis.md)\n');
  });

  it('refuses each OpenAI-only feature at its field, saying why', () => {
    const why = (field: string, line: number, column: number, reason: string) =>
      `p.yaml:${line}:${column}: scenarios[0].${field}: api: messages: ${reason}`;
    const noEffort =
      'Anthropic has no reasoning_effort: set request_extra.thinking ({type: enabled, budget_tokens: N})';
    expect(
      profileProblems(
        scenario(`    api: messages
    tiers: [flex]
    reasoning_efforts: [low]
    request:
      response_format: { type: json_object }
      logprobs: true
      top_logprobs: 2
      seed: 1
      frequency_penalty: 0.1
      presence_penalty: 0.1
      logit_bias: { "1": 1 }
      prompt_cache_key: k
      stream_options: { include_usage: true }
`),
      ),
    ).toEqual([
      why(
        'tiers',
        6,
        5,
        "OpenAI's service tiers (flex, priority...) are not Anthropic's service_tier (auto, standard_only): set request_extra.service_tier",
      ),
      why('reasoning_efforts', 7, 5, noEffort),
      why(
        'request.response_format',
        9,
        7,
        'the Messages API has no response_format (answers cannot be checked against a schema)',
      ),
      why('request.logprobs', 10, 7, 'the Messages API returns no logprobs'),
      why('request.top_logprobs', 11, 7, 'the Messages API returns no logprobs'),
      why('request.seed', 12, 7, 'the Messages API has no seed'),
      why('request.frequency_penalty', 13, 7, 'the Messages API has no frequency_penalty'),
      why('request.presence_penalty', 14, 7, 'the Messages API has no presence_penalty'),
      why('request.logit_bias', 15, 7, 'the Messages API has no logit_bias'),
      why('request.prompt_cache_key', 16, 7, 'Anthropic caches prompts at cache_control breakpoints, not by a key'),
      why('request.stream_options', 17, 7, 'a Messages stream always carries usage; Anthropic has no stream_options'),
    ]);
  });

  it('refuses reasoning_effort, and names a mix class that asks for a refused feature', () => {
    expect(profileProblems(scenario('    api: messages\n    request: { reasoning_effort: low }\n'))).toEqual([
      'p.yaml:6:16: scenarios[0].request.reasoning_effort: api: messages: Anthropic has no reasoning_effort: set request_extra.thinking ({type: enabled, budget_tokens: N})',
    ]);
    const mixed = profileProblems(
      scenario(`    api: messages
    mix:
      - { name: plain, weight: 1 }
      - { name: seeded, weight: 1, request: { seed: 3 } }
`),
    );
    expect(mixed).toHaveLength(1);
    expect(mixed[0]).toMatch(
      /^p\.yaml:8:\d+: scenarios\[0\]\.mix\[1\]\.request\.seed: api: messages: the Messages API has no seed$/,
    );
  });
});
