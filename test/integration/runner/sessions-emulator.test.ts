/**
 * Sessions and the tool loop against the emulator (in this process): the prompt cache grows turn by turn
 * (breakdowns.turn), and every tool-loop follow-up passes the emulator's version-2 tool-message rules (no
 * 400s) with its rounds labelled, whether the loop runs to max_rounds (tool_choice required) or ends when
 * the model answers the results with text (auto).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { csvRows } from '../../helpers/conversation-bodies.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-sessions-emulator-');
const emulators = useInProcessEmulators();

async function run(name: string, yaml: string) {
  const out = join(folder.dir, name);
  const args = ['run', folder.writeProfile(name, yaml), '--out', out, '--quiet'];
  const result = await runCliInProcess(args, { cwd: folder.dir, target: await emulators.start() });
  return { ...result, out };
}

const WEATHER_TOOL = `
      tools:
        - type: function
          function:
            name: get_weather
            parameters:
              type: object
              properties: { city: { type: string } }
              required: [city]
              additionalProperties: false`;

describe('sessions and the tool loop against the embedded emulator', () => {
  it('shows cached tokens growing turn by turn in breakdowns.turn', async () => {
    const { code, stderr, out } = await run(
      'emulator-turns',
      `scenarios:
  - name: chat
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 3 }
    requests: 3
    prompt: { input_tokens: 300, output_tokens: 8 }
    request: { temperature: 0 }
    session: { turns: 4, think_time: 10ms, user_tokens: 150 }
`,
    );
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const group = readSummary(out).groups[0]!;
    expect(group.requests.ok).toBe(12);
    expect(group.requests.failed).toBe(0);
    const turns = group.breakdowns!.turn!;
    expect(Object.keys(turns).sort()).toEqual(['1', '2', '3', '4']);
    const cached = ['1', '2', '3', '4'].map((turn) => turns[turn]!.cached_tokens / turns[turn]!.ok);
    // Turn 1 finds nothing (its key is new); each later turn reuses the whole conversation before it.
    expect(cached[0]).toBe(0);
    expect(cached[1]).toBeGreaterThan(0);
    expect(cached[2]).toBeGreaterThan(cached[1]!);
    expect(cached[3]).toBeGreaterThan(cached[2]!);
    expect(turns['4']!.input_tokens / 3).toBeGreaterThan(300 + 3 * 150);
  }, 60_000);

  it('runs the tool loop to max_rounds with follow-ups the emulator accepts (no 400s), rounds labelled', async () => {
    const { code, stderr, out } = await run(
      'emulator-tools',
      `scenarios:
  - name: agent
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 4
    prompt: { input_tokens: 40, output_tokens: 64 }
    tool_loop: { max_rounds: 2, result_tokens: 20 }
    session: { turns: 2 }
    request:
      tool_choice: required${WEATHER_TOOL}
`,
    );
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const group = readSummary(out).groups[0]!;
    // tool_choice required: every answer calls a tool, so each turn is round 0 and 2 rounds of results.
    expect(group.requests.failed).toBe(0);
    expect(group.requests.ok).toBe(4 * 2 * 3);
    const rounds = csvRows(out).map((row) => row.labels);
    for (const turn of ['1', '2'])
      for (const round of ['0', '1', '2'])
        expect(rounds.filter((labels) => labels === `tool_round=${round};turn=${turn}`)).toHaveLength(4);
  }, 60_000);

  it('ends the loop when the model answers with text after the tool results (tool_choice auto)', async () => {
    const dataset = join(folder.dir, 'tool-prompts.jsonl');
    writeFileSync(dataset, `${JSON.stringify({ prompt: 'Please use get_weather for Paris.' })}\n`);
    const { code, out } = await run(
      'emulator-auto',
      `scenarios:
  - name: agent
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 1 }
    requests: 2
    prompt: { dataset: { path: tool-prompts.jsonl }, output_tokens: 64 }
    tool_loop: {}
    request:${WEATHER_TOOL}
`,
    );
    expect(code).toBe(0);
    // Round 1 carries the results; the model answers with text (stop, or length at max_completion_tokens).
    const rows = csvRows(out).map((row) => `${row.labels}:${row.finish_reason === 'tool_calls' ? 'calls' : 'text'}`);
    expect(rows).toEqual(['tool_round=0:calls', 'tool_round=1:text', 'tool_round=0:calls', 'tool_round=1:text']);
  }, 60_000);
});
