/**
 * Answer checks end to end (`inferbench run`, in-process): the shipped tools-and-structured-output profile
 * against the emulator (in this process) passes every check and counts one per ok request; against a server that
 * streams invalid tool arguments and non-conforming JSON (test/helpers/invalid-answer-server.ts) the
 * failures are counted with sample messages, the requests stay ok, requests.csv names the failed checks,
 * the table shows the pass rates and a pass-rate threshold fails the run with exit 99. The emulator's
 * `invalid_answer` fault (x-emulator-fault) breaks every answer, and every check fails.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { JSON_ANSWERS, TOOL_ANSWERS, startInvalidAnswerServer } from '../../helpers/invalid-answer-server.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-answer-checks-');
const emulators = useInProcessEmulators();
const PROFILE = resolve(import.meta.dirname, '..', '..', '..', 'profiles', 'tools-and-structured-output.yaml');

/**
 * The shipped profile's two scenarios cut to 12 measured requests each (a duration of 1 s sent 60 to 70, each
 * answer 256 tokens): enough for the counts the tests read (more than 10 per group), under a cap of 30 s that
 * a loaded machine never reaches, so no count depends on the machine's speed.
 */
const TWELVE_REQUESTS_EACH = [0, 1].flatMap((i) => [
  '--set',
  `scenarios[${i}].requests=12`,
  '--set',
  `scenarios[${i}].duration=30s`,
]);

function csvRecords(runDir: string): Record<string, string>[] {
  return parseCsvRecords(readFileSync(join(runDir, 'requests.csv'), 'utf8')).records;
}

const SLOPPY_PROFILE = `name: sloppy
scenarios:
  - name: tools
    load: { mode: concurrency, concurrency: 1 }
    requests: 10
    prompt: { input_tokens: 16 }
    request:
      tool_choice: required
      tools:
        - type: function
          function:
            name: lookup
            parameters:
              type: object
              properties: { id: { type: integer }, label: { type: string } }
              required: [id, label]
  - name: structured
    load: { mode: concurrency, concurrency: 1 }
    requests: 9
    prompt: { input_tokens: 16 }
    request:
      response_format:
        type: json_schema
        json_schema:
          name: grade
          schema:
            type: object
            properties: { title: { type: string }, score: { type: number } }
            required: [title, score]
thresholds: ["tools/sloppy-model/-: tool_arguments_pass_rate >= 0.9"]
`;

describe('answer checks', () => {
  it('the shipped profile against the emulator: every answer checked, pass rate 1', { timeout: 60_000 }, async () => {
    const out = join(folder.dir, 'emulator');
    const sets = TWELVE_REQUESTS_EACH;
    const result = await runCliInProcess(['run', PROFILE, '--out', out, ...sets], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const [tools, structured] = readSummary(out).groups;
    expect(tools?.requests.ok).toBeGreaterThan(10);
    expect(tools?.checks).toEqual({
      tool_arguments: { passed: tools?.requests.ok, failed: 0, pass_rate: 1, samples: [] },
    });
    expect(structured?.requests.ok).toBeGreaterThan(10);
    expect(structured?.checks).toEqual({
      json_schema: { passed: structured?.requests.ok, failed: 0, pass_rate: 1, samples: [] },
    });
    const rows = csvRecords(out);
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.every((row) => row['checks_failed'] === '')).toBe(true);
    expect(result.stdout).toMatch(/tools\/small-fast-8b\/-.*args 100%/);
    expect(result.stdout).toMatch(/structured\/small-fast-8b\/-.*json 100%/);
  });

  it("the emulator's invalid_answer fault: every answer fails its check, no request fails", {
    timeout: 60_000,
  }, async () => {
    const out = join(folder.dir, 'fault');
    const text = readFileSync(PROFILE, 'utf8').replace(
      /^name: .*$/m,
      'name: broken\ntarget: { headers: { x-emulator-fault: invalid_answer } }',
    );
    const profile = folder.writeProfile('broken', text);
    const sets = TWELVE_REQUESTS_EACH;
    const result = await runCliInProcess(['run', profile, '--out', out, ...sets], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code).toBe(99);
    for (const group of readSummary(out).groups) {
      expect(group.requests.failed).toBe(0);
      const [name, stats] = Object.entries(group.checks ?? {})[0] ?? [];
      expect(name).toBe(group.scenario === 'tools' ? 'tool_arguments' : 'json_schema');
      expect(stats).toMatchObject({ passed: 0, failed: group.requests.ok, pass_rate: 0 });
      expect(stats?.samples[0]).toMatch(/arguments not JSON|content not JSON/);
    }
  });

  it('invalid answers: failures counted with samples, requests still ok, threshold fails', {
    timeout: 60_000,
  }, async () => {
    const server = await startInvalidAnswerServer();
    try {
      const out = join(folder.dir, 'sloppy');
      const profile = folder.writeProfile('sloppy', SLOPPY_PROFILE);
      const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
        cwd: folder.dir,
      });
      expect(result.stderr).not.toMatch(/internal error/i);
      expect(result.code).toBe(99);
      const summary = readSummary(out);
      const [tools, structured] = summary.groups;
      // 10 requests over the 5 tool answers: the first of each 5 is valid.
      expect(tools?.requests).toMatchObject({ ok: 10, failed: 0 });
      expect(tools?.error_rate).toBe(0);
      expect(tools?.checks?.tool_arguments).toMatchObject({ passed: 2, failed: 8, pass_rate: 0.2 });
      expect(tools?.checks?.tool_arguments?.samples).toEqual([
        'lookup: arguments /id must be integer',
        "lookup: arguments / must have required property 'id'",
        expect.stringMatching(/^lookup: arguments not JSON \(/),
      ]);
      expect(TOOL_ANSWERS).toHaveLength(5);
      // 9 requests over the 3 JSON answers: the first of each 3 is valid.
      expect(structured?.requests).toMatchObject({ ok: 9, failed: 0 });
      expect(structured?.checks?.json_schema).toMatchObject({ passed: 3, failed: 6, pass_rate: 0.333333 });
      expect(structured?.checks?.json_schema?.samples).toEqual([
        "content / must have required property 'score'",
        expect.stringMatching(/^content not JSON \(/),
      ]);
      expect(JSON_ANSWERS).toHaveLength(3);
      expect(summary.thresholds).toEqual([expect.objectContaining({ group: tools?.key, actual: 0.2, passed: false })]);
      const failed = csvRecords(out).map((row) => `${row['scenario']}:${row['checks_failed']}`);
      expect(failed.slice(0, 5)).toEqual([
        'tools:',
        'tools:tool_arguments',
        'tools:tool_arguments',
        'tools:tool_arguments',
        'tools:tool_arguments',
      ]);
      expect(failed.filter((cell) => cell === 'structured:json_schema')).toHaveLength(6);
      expect(result.stdout).toMatch(/tools\/sloppy-model\/-.*args 20%/);
      expect(result.stdout).toMatch(/structured\/sloppy-model\/-.*json 33\.3%/);
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toContain('Answer checks');
    } finally {
      await server.close();
    }
  });
});
