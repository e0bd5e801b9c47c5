/**
 * Trace replay's file (profile/sections/trace/trace-file.ts) and its profile keys: each public format with its unit,
 * unit overrides, start, CSV, and a bad record reported as file:line: field at profile load (validate).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { fileText } from '../../../src/profile/file-text.js';
import type { ParsedTrace } from '../../../src/profile/resolved-profile.js';
import { recordedProfile } from '../../../src/profile/sections/trace/trace.js';
import { parseTrace, readTrace } from '../../../src/profile/sections/trace/trace-file.js';
import { traceOffsetsMs } from '../../../src/schedule/trace-schedule.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash } from '../../../src/workload/workload-hash.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const plain = (trace: ParsedTrace) => ({
  format: trace.format,
  unit: trace.timestampUnit,
  offsets: [...trace.offsetsMs],
  inputs: [...trace.inputTokens],
  outputs: [...trace.outputTokens],
});

function profileError(yaml: string): string {
  try {
    resolveProfileText(yaml, join(dir, 'p.yaml'));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a profile error');
}

describe('trace formats', () => {
  it('inferbench JSONL: ms, relative to the first record', () => {
    const text = [
      '{"timestamp": 1000, "input_tokens": 10, "output_tokens": 5}',
      '',
      '{"timestamp": 1250, "input_tokens": 20, "output_tokens": 0}',
      '{"timestamp": 1250, "input_tokens": 30, "output_tokens": 7}',
    ].join('\n');
    expect(plain(parseTrace(text, 't.jsonl', 'auto', null))).toEqual({
      format: 'inferbench',
      unit: 'ms',
      offsets: [0, 250, 250],
      inputs: [10, 20, 30],
      outputs: [5, 0, 7],
    });
  });

  it("Mooncake's JSONL (hash_ids ignored): ms", () => {
    const text = [
      '{"timestamp": 0, "input_length": 6755, "output_length": 500, "hash_ids": [0, 1, 2]}',
      '{"timestamp": 3052, "input_length": 2287, "output_length": 316, "hash_ids": [0, 42]}',
    ].join('\n');
    expect(plain(parseTrace(text, 'm.jsonl', 'auto', null))).toMatchObject({
      format: 'mooncake',
      unit: 'ms',
      offsets: [0, 3052],
      inputs: [6755, 2287],
      outputs: [500, 316],
    });
  });

  it("BurstGPT's CSV as released: seconds; and its fields as JSONL", () => {
    const csv = [
      'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type',
      '5,ChatGPT,472,18,490,Conversation log',
      '45,ChatGPT,1087,230,1317,Conversation log',
      '118,GPT-4,417,276,693,"API log, quoted"',
    ].join('\r\n');
    expect(plain(parseTrace(csv, 'BurstGPT_1.csv', 'auto', null))).toEqual({
      format: 'burstgpt',
      unit: 's',
      offsets: [0, 40_000, 113_000],
      inputs: [472, 1087, 417],
      outputs: [18, 230, 276],
    });
    const jsonl =
      '{"Timestamp": 5, "Request tokens": 1, "Response tokens": 2}\n{"Timestamp": 5.5, "Request tokens": 3, "Response tokens": 4}';
    expect(plain(parseTrace(jsonl, 'b.jsonl', 'burstgpt', null)).offsets).toEqual([0, 500]);
  });

  it('timestamp_unit overrides the format default; start skips the head and offsets count from it', () => {
    const text =
      '{"timestamp": 0, "input_tokens": 1, "output_tokens": 1}\n{"timestamp": 2, "input_tokens": 2, "output_tokens": 2}\n{"timestamp": 3.5, "input_tokens": 3, "output_tokens": 3}';
    expect(plain(parseTrace(text, 't.jsonl', 'auto', 's')).offsets).toEqual([0, 2000, 3500]);
    expect(plain(parseTrace(text, 't.jsonl', 'auto', 's', 2000))).toMatchObject({ offsets: [0, 1500], inputs: [2, 3] });
  });
});

describe('bad trace records name the file, line and field', () => {
  const bad: [string, string, RegExp][] = [
    [
      'not JSON',
      '{"timestamp": 0, "input_tokens": 1, "output_tokens": 1}\n{"timestamp": 1,',
      /^x\.jsonl:2: not valid JSON$/,
    ],
    ['a field missing', '{"timestamp": 0, "input_tokens": 1}', /^x\.jsonl:1: output_tokens: missing$/],
    [
      'a negative count',
      '{"timestamp": 0, "input_tokens": -3, "output_tokens": 1}',
      /^x\.jsonl:1: input_tokens: expected a whole number of tokens >= 0, got -3$/,
    ],
    [
      'a timestamp that is text',
      '{"timestamp": "soon", "input_tokens": 1, "output_tokens": 1}',
      /^x\.jsonl:1: timestamp: expected a number, got "soon"$/,
    ],
    [
      'time going backwards',
      '{"timestamp": 10, "input_tokens": 1, "output_tokens": 1}\n\n{"timestamp": 5, "input_tokens": 1, "output_tokens": 1}',
      /^x\.jsonl:3: timestamp: 5 is earlier than the previous record's \(line 1\); records must be in time order$/,
    ],
    [
      'unknown fields',
      '{"time": 0, "prompt": 1}',
      /^x\.jsonl:1: the first record has none of input_tokens, input_length/,
    ],
  ];
  for (const [what, text, message] of bad)
    it(what, () => expect(() => parseTrace(text, 'x.jsonl', 'auto', null)).toThrow(message));

  it('a CSV row with the wrong number of columns', () => {
    const csv = 'Timestamp,Request tokens,Response tokens\n1,2,3\n4,5\n';
    expect(() => parseTrace(csv, 'x.csv', 'auto', null)).toThrow(
      /^x\.csv:3: 2 columns where the header \(line 1\) has 3$/,
    );
  });

  it('a CSV record out of time order names its line and the previous one, blank lines counted', () => {
    const csv = 'Timestamp,Request tokens,Response tokens\n10,1,1\n\n   \n5,1,1\n';
    expect(() => parseTrace(csv, 'x.csv', 'auto', null)).toThrow(
      /^x\.csv:5: Timestamp: 5 is earlier than the previous record's \(line 2\); records must be in time order$/,
    );
    expect(() => parseTrace('Timestamp,Request tokens,Response tokens\n1,2,x\n', 'x.csv', 'auto', null)).toThrow(
      /^x\.csv:2: Response tokens: expected a number, got "x"$/,
    );
  });

  it('a quoted CSV (read by csv-parse): wrong columns and an unclosed quote name their lines', () => {
    const wrong = 'Timestamp,Request tokens,Response tokens\n1,2,"3"\n4,5\n';
    expect(() => parseTrace(wrong, 'x.csv', 'auto', null)).toThrow(
      /^x\.csv:3: 2 columns where the header \(line 1\) has 3$/,
    );
    const unclosed = 'Timestamp,Request tokens,Response tokens\n1,2,3\n4,5,"6\n';
    expect(() => parseTrace(unclosed, 'x.csv', 'auto', null)).toThrow(/^x\.csv:3: Quote Not Closed/);
  });

  it('at profile load (validate), as a profile error at load.path', () => {
    write(
      'bad.jsonl',
      '{"timestamp": 0, "input_tokens": 1, "output_tokens": 1}\n{"timestamp": 1, "input_tokens": 1.5, "output_tokens": 1}\n',
    );
    const message = profileError('scenarios:\n  - name: t\n    load: { mode: trace, path: bad.jsonl }\n');
    expect(message).toContain(
      `scenarios[0].load.path: ${join(dir, 'bad.jsonl')}:2: input_tokens: expected a whole number of tokens >= 0, got 1.5`,
    );
    expect(profileError('scenarios:\n  - name: t\n    load: { mode: trace, path: missing.jsonl }\n')).toMatch(
      /cannot read trace .*missing\.jsonl: ENOENT/,
    );
  });
});

describe('trace replay in a profile', () => {
  const path = write(
    'ok.jsonl',
    '{"timestamp": 0, "input_tokens": 4, "output_tokens": 2}\n{"timestamp": 2000, "input_tokens": 8, "output_tokens": 3}\n{"timestamp": 4000, "input_tokens": 8, "output_tokens": 3}\n',
  );

  it('resolves to an open loop replaying the file: mean rate as replayed, no duration needed', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: t\n    load: { mode: trace, path: ok.jsonl, time_scale: 2, start: 0s, max_concurrency: 8 }\n',
      join(dir, 'p.yaml'),
    );
    const scenario = profile.scenarios[0]!;
    expect(scenario.durationMs).toBeNull();
    expect(scenario.requests).toBeNull();
    expect(scenario.load).toEqual({
      mode: 'rate',
      rate: 1.5,
      arrival: 'constant',
      burstiness: 1,
      maxConcurrency: 8,
      stages: null,
      trace: { path, format: 'auto', timestampUnit: null, timeScale: 2, startMs: 0, records: expect.anything() },
    });
    // The records, read when the profile was resolved, travel with it.
    const records = scenario.load.mode === 'rate' ? scenario.load.trace!.records : (undefined as never);
    expect(plain(records)).toEqual({
      format: 'inferbench',
      unit: 'ms',
      offsets: [0, 2000, 4000],
      inputs: [4, 8, 8],
      outputs: [2, 3, 3],
    });
    expect(records.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses what a trace sets itself, and trace keys in another mode', () => {
    const message = profileError(
      [
        'scenarios:',
        '  - name: t',
        '    load: { mode: trace, path: ok.jsonl, rate: 5 }',
        '    warmup: 2s',
        '    prompt: { input_tokens: 100 }',
        '  - name: r',
        '    load: { mode: rate, rate: 5, time_scale: 2 }',
        '    duration: 1s',
        '  - name: n',
        '    load: { mode: trace }',
      ].join('\n'),
    );
    expect(message).toContain(
      'scenarios[0].load.rate: does not apply to mode: trace (the trace gives the arrival times)',
    );
    expect(message).toContain(
      'scenarios[0].warmup: does not apply to a scenario with load mode: trace (a trace has no warmup',
    );
    expect(message).toContain(
      "scenarios[0].prompt.input_tokens: does not apply to a scenario with load mode: trace (each record sets its request's input and output tokens)",
    );
    expect(message).toContain('scenarios[1].load.time_scale: applies to mode: trace only');
    expect(message).toContain('scenarios[2].load: mode trace needs path (the trace file)');
    expect(message).not.toContain('needs duration and/or requests');
  });
});

describe('review fixes: file text', () => {
  it('reads a JSONL or CSV trace that starts with a UTF-8 byte order mark', () => {
    const jsonl = write('bom.jsonl', '\uFEFF{"timestamp": 0, "input_tokens": 4, "output_tokens": 2}\n');
    const spec = { format: 'auto', timestampUnit: null, startMs: 0 } as const;
    expect(plain(readTrace({ ...spec, path: jsonl }))).toMatchObject({ format: 'inferbench', inputs: [4] });
    const csv = write('bom.csv', '\uFEFFtimestamp,input_tokens,output_tokens\n0,7,3\n');
    expect(plain(readTrace({ ...spec, path: csv }))).toMatchObject({ inputs: [7], outputs: [3] });
  });

  it('turns a file too large for one string into a BAD_PROFILE error naming it', () => {
    const huge = {
      length: 600 * 1024 * 1024,
      toString(): string {
        throw Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), {
          code: 'ERR_STRING_TOO_LONG',
        });
      },
    } as unknown as Buffer;
    let caught: unknown;
    try {
      fileText(huge, '/data/trace.jsonl');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'BAD_PROFILE' });
    expect((caught as Error).message).toBe(
      '/data/trace.jsonl: too large to read (600 MiB; Node holds at most about 512 MiB of text in one string)',
    );
    expect((caught as { hint?: string }).hint).toMatch(/split the file/);
  });
});

describe('the trace is read once, when the profile is resolved', () => {
  it('the schedule, the workload and the workload hash replay the records read then, not the file as it is later', () => {
    const path = write(
      'once.jsonl',
      '{"timestamp": 0, "input_tokens": 5, "output_tokens": 2}\n{"timestamp": 1000, "input_tokens": 6, "output_tokens": 3}\n',
    );
    const profile = resolveGroupModels(
      resolveProfileText('scenarios:\n  - name: t\n    load: { mode: trace, path: once.jsonl }\n', join(dir, 'p.yaml')),
      'model-x',
    );
    const hash = workloadHash(profile);
    // The same size, so a cache keyed on the file's size and time could miss the change; any later read would see it.
    writeFileSync(
      path,
      '{"timestamp": 0, "input_tokens": 7, "output_tokens": 4}\n{"timestamp": 3000, "input_tokens": 8, "output_tokens": 5}\n',
    );
    const scenario = profile.scenarios[0]!;
    const trace = scenario.load.mode === 'rate' ? scenario.load.trace! : (undefined as never);
    expect([...traceOffsetsMs(trace)]).toEqual([0, 1000]);
    const workload = createWorkload(scenario, profile.groups[0]!);
    expect([0, 1].map((index) => workload.next(index).body.max_completion_tokens)).toEqual([2, 3]);
    expect(workloadHash(profile)).toBe(hash);
  });

  it('summary.json and validate --json record the trace spec without its records', () => {
    write('rec.jsonl', '{"timestamp": 0, "input_tokens": 4, "output_tokens": 2}\n');
    const profile = resolveProfileText(
      'scenarios:\n  - name: t\n    load: { mode: trace, path: rec.jsonl, time_scale: 2 }\n  - name: s\n    requests: 1\n',
      join(dir, 'p.yaml'),
    );
    const recorded = JSON.parse(JSON.stringify(recordedProfile(profile)));
    expect(recorded.scenarios[0].load.trace).toEqual({
      path: join(dir, 'rec.jsonl'),
      format: 'auto',
      timestampUnit: null,
      timeScale: 2,
      startMs: 0,
    });
    expect(recorded.scenarios[1]).toEqual(JSON.parse(JSON.stringify(profile.scenarios[1])));
    expect(recorded.groups).toEqual(JSON.parse(JSON.stringify(profile.groups)));
  });
});
