/**
 * Trace replay's requests (workload/trace-requests.ts): request n is record n, its user message exactly
 * the record's input tokens and max_completion_tokens its output tokens; 0 is sent as 1; a system prompt
 * comes on top; the same profile builds the same requests; the trace's content is in the workload hash.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-trace-workload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECORDS = [
  { timestamp: 0, input_length: 1, output_length: 9 },
  { timestamp: 5, input_length: 37, output_length: 0 },
  { timestamp: 5, input_length: 0, output_length: 120 },
  { timestamp: 40, input_length: 4321, output_length: 7 },
];
writeFileSync(join(dir, 'mooncake.jsonl'), RECORDS.map((r) => JSON.stringify(r)).join('\n'));

function profileOf(extra = ''): ResolvedProfile {
  const yaml = `scenarios:\n  - name: t\n    load: { mode: trace, path: mooncake.jsonl }\n    request: { temperature: 0 }\n${extra}`;
  return resolveGroupModels(resolveProfileText(yaml, join(dir, 'p.yaml')), 'model-x');
}

function workloadOf(profile: ResolvedProfile) {
  return createWorkload(profile.scenarios[0]!, profile.groups[0]!);
}

const userText = (messages: unknown): string =>
  ((messages as ChatMessage[]).find((m) => m.role === 'user')?.content as string | undefined) ?? '';

describe('trace replay requests', () => {
  it('sizes each request from its record: exact input tokens, max_completion_tokens from output (0 -> 1)', () => {
    const workload = workloadOf(profileOf());
    const plans = RECORDS.map((_, i) => workload.next(i));
    expect(plans.map((plan) => countTokens(userText(plan.body.messages)))).toEqual([1, 37, 1, 4321]);
    expect(plans.map((plan) => plan.expectedInputTokens)).toEqual([1, 37, 1, 4321]);
    expect(plans.map((plan) => plan.body.max_completion_tokens)).toEqual([9, 1, 120, 7]);
    expect(plans[0]!.body).toMatchObject({ model: 'model-x', stream: true, temperature: 0 });
    // Nothing outside the spec unless the profile asks (request_extra: { ignore_eos: true } for vLLM).
    expect(Object.keys(plans[0]!.body).sort()).toEqual(
      ['max_completion_tokens', 'messages', 'model', 'stream', 'stream_options', 'temperature'].sort(),
    );
  });

  it('is the same in every build, and a system prompt comes on top of the record', () => {
    const a = workloadOf(profileOf()).next(3);
    const b = workloadOf(profileOf()).next(3);
    expect(a.body).toEqual(b.body);
    const withSystem = workloadOf(profileOf('    prompt: { system: "Be brief." }\n')).next(1);
    expect((withSystem.body.messages as ChatMessage[]).map((m) => m.role)).toEqual(['system', 'user']);
    expect(countTokens(userText(withSystem.body.messages))).toBe(37);
    expect(withSystem.expectedInputTokens).toBe(37 + countTokens('Be brief.'));
  });

  it("puts the trace's content in the workload hash, not its replay speed", () => {
    const before = workloadHash(profileOf());
    const faster = workloadHash(
      resolveGroupModels(
        resolveProfileText(
          'scenarios:\n  - name: t\n    load: { mode: trace, path: mooncake.jsonl, time_scale: 3 }\n    request: { temperature: 0 }\n',
          join(dir, 'p.yaml'),
        ),
        'model-x',
      ),
    );
    expect(faster).toBe(before);
    writeFileSync(
      join(dir, 'mooncake.jsonl'),
      RECORDS.map((r) => JSON.stringify({ ...r, output_length: 8 })).join('\n'),
    );
    try {
      expect(workloadHash(profileOf())).not.toBe(before);
    } finally {
      writeFileSync(join(dir, 'mooncake.jsonl'), RECORDS.map((r) => JSON.stringify(r)).join('\n'));
    }
  });
});
