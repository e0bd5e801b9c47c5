import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile, resolveProfileText } from '../../../src/profile/load-profile.js';
import { isInferbenchError } from '../../../src/errors.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/profiles');

/** The BAD_PROFILE message lines (without the header line). */
function problems(text: string, overrides: string[] = [], name = 'p.yaml'): string[] {
  try {
    resolveProfileText(text, name, overrides, FIXTURES);
  } catch (error) {
    if (!isInferbenchError(error) || error.code !== 'BAD_PROFILE') throw error;
    expect(error.hint).toMatch(/validate/);
    return error.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  throw new Error('expected a BAD_PROFILE error');
}

const MINIMAL = 'scenarios:\n  - name: s\n    duration: 5s\n';

describe('loadProfile: a valid profile', () => {
  const text = `name: demo
target:
  base_url: https://api.example.com/v1/
  api_key_env: MY_KEY
  headers: { X-Service-Version-Patch: 2, X-Team: bench }
defaults:
  request: { max_completion_tokens: 256, temperature: 0.5 }
  prompt: { input_tokens: { dist: normal, mean: 512, stddev: 64 } }
  timeouts: { connect: 5s }
  duration: 1m30s
scenarios:
  - name: steady
    models: [model-a, model-b]
    tiers: [priority, default, flex]
    load: { mode: concurrency, concurrency: 16 }
    warmup: 500ms
    request: { temperature: 0 }
    timeouts: { total: 300 }
    retry: { max_attempts: 3, on: [http_429], backoff: 2s }
    encoding: { content_type: msgpack, gzip: true }
    seed: 42
  - name: open
    load: { rate: 20, arrival: gamma, burstiness: 0.5, max_concurrency: 50 }
    requests: 500
    duration: 10s
    graceful_stop: 5s
    prompt: { input_tokens: 100, output_tokens: { dist: uniform, min: 10, max: 20 }, shared_prefix_tokens: 64, system: Be brief. }
  - name: stages
    load: { mode: rate, stages: [{ duration: 2s, rate: 5 }, { duration: 3s, rate: 15, ramp: step }] }
thresholds: ["ttft_ms.p99 < 800", "error_rate < 0.01", "steady/model-a/flex: e2e_ms.p50 <= 2000"]
slo: { ttft_ms.p99: 500, itl_ms.p99: 50 }
compare: { tolerances: { ttft_ms.p99: "10%", e2e_ms.p50: 5ms } }
`;
  const profile = resolveProfileText(text, '/tmp/demo.yaml');
  const [steady, open, stages] = profile.scenarios;

  it('keeps the target, strips /v1 and stringifies header values', () => {
    expect(profile.name).toBe('demo');
    expect(profile.target).toEqual({
      baseUrl: 'https://api.example.com',
      apiKeyEnv: 'MY_KEY',
      managementKeyEnv: 'INFERENCE_MANAGEMENT_KEY',
      headers: { 'X-Service-Version-Patch': '2', 'X-Team': 'bench' },
      emulatorConfig: null,
      tls: null,
      streamUsage: true,
      requestIdHeader: 'x-request-id',
      traceContext: true,
      tokenizer: null,
    });
  });

  it('merges defaults into scenarios one level deep, the scenario winning', () => {
    expect(steady!.request).toEqual({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      temperature: 0,
    });
    expect(open!.request).toEqual({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      temperature: 0.5,
    });
    expect(steady!.timeouts).toEqual({
      connectMs: 5000,
      headersMs: 60_000,
      firstTokenMs: 60_000,
      idleMs: 30_000,
      totalMs: 300_000,
    });
    expect(steady!.prompt.inputTokens).toEqual({ dist: 'normal', mean: 512, stddev: 64, min: 1, max: 832 });
    // open sets its own prompt.input_tokens: the default's distribution is replaced, not mixed.
    expect(open!.prompt.inputTokens).toEqual({ dist: 'fixed', value: 100 });
  });

  it('converts durations to milliseconds', () => {
    expect(steady!.durationMs).toBe(90_000);
    expect(steady!.warmupMs).toBe(500);
    expect(open!.durationMs).toBe(10_000);
    expect(open!.gracefulStopMs).toBe(5000);
    expect(steady!.gracefulStopMs).toBe(30_000);
    expect(steady!.retry).toEqual({ maxAttempts: 3, on: ['http_429'], backoffMs: 2000 });
  });

  it('resolves load specs per mode, with defaults', () => {
    expect(steady!.load).toEqual({ mode: 'concurrency', concurrency: 16, stages: null });
    expect(open!.load).toEqual({
      mode: 'rate',
      rate: 20,
      arrival: 'gamma',
      burstiness: 0.5,
      maxConcurrency: 50,
      stages: null,
    });
    expect(stages!.load).toEqual({
      mode: 'rate',
      rate: 15,
      arrival: 'poisson',
      burstiness: 1,
      maxConcurrency: 1000,
      stages: [
        { durationMs: 2000, target: 5, ramp: 'linear' },
        { durationMs: 3000, target: 15, ramp: 'step' },
      ],
    });
    // defaults.duration (90s) wins over the stages' sum when set; the limit fields come from defaults.
    expect(stages!.durationMs).toBe(90_000);
  });

  it('keeps the other scenario fields', () => {
    expect(steady!.encoding).toEqual({ contentType: 'msgpack', gzip: true });
    expect(steady!.seed).toBe(42);
    expect(open!.seed).toBe(1);
    expect(open!.requests).toBe(500);
    expect(open!.prompt).toEqual({
      inputTokens: { dist: 'fixed', value: 100 },
      outputTokens: { dist: 'uniform', min: 10, max: 20 },
      sharedPrefixTokens: 64,
      system: 'Be brief.',
      dataset: null,
    });
  });

  it('expands the matrix into groups with stable keys', () => {
    expect(profile.groups.map((g) => g.key)).toEqual([
      'steady/model-a/priority',
      'steady/model-a/default',
      'steady/model-a/flex',
      'steady/model-b/priority',
      'steady/model-b/default',
      'steady/model-b/flex',
      'open/*/-',
      'stages/*/-',
    ]);
    expect(profile.groups.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(profile.groups[6]).toEqual({ index: 6, scenario: 'open', model: null, tier: null, key: 'open/*/-' });
  });

  it('parses thresholds, slo and tolerances', () => {
    expect(profile.thresholds).toEqual([
      { expression: 'ttft_ms.p99 < 800', group: null, metric: 'ttft_ms', stat: 'p99', op: '<', value: 800 },
      { expression: 'error_rate < 0.01', group: null, metric: 'error_rate', stat: null, op: '<', value: 0.01 },
      {
        expression: 'steady/model-a/flex: e2e_ms.p50 <= 2000',
        group: 'steady/model-a/flex',
        metric: 'e2e_ms',
        stat: 'p50',
        op: '<=',
        value: 2000,
      },
    ]);
    expect(profile.slo).toEqual({ 'ttft_ms.p99': 500, 'itl_ms.p99': 50 });
    expect(profile.compare.tolerances).toEqual({ 'ttft_ms.p99': '10%', 'e2e_ms.p50': '5ms' });
  });

  it('is deeply frozen', () => {
    expect(Object.isFrozen(profile)).toBe(true);
    expect(Object.isFrozen(profile.scenarios[0]!.request)).toBe(true);
    expect(Object.isFrozen(profile.scenarios[1]!.prompt.outputTokens)).toBe(true);
    expect(() => {
      (profile.groups as unknown as unknown[]).push({});
    }).toThrow(TypeError);
  });
});

describe('loadProfile: defaults of a minimal profile', () => {
  it('fills every default of the README', () => {
    const profile = resolveProfileText(MINIMAL, '/x/minimal.yaml');
    expect(profile.name).toBe('minimal');
    expect(profile.sourcePath).toBe('/x/minimal.yaml');
    expect(profile.target).toEqual({
      baseUrl: null,
      apiKeyEnv: 'INFERENCE_API_KEY',
      managementKeyEnv: 'INFERENCE_MANAGEMENT_KEY',
      headers: {},
      emulatorConfig: null,
      tls: null,
      streamUsage: true,
      requestIdHeader: 'x-request-id',
      traceContext: true,
      tokenizer: null,
    });
    expect(profile.scenarios[0]).toEqual({
      name: 's',
      models: [],
      tiers: [],
      load: { mode: 'concurrency', concurrency: 1, stages: null },
      durationMs: 5000,
      requests: null,
      warmupMs: 0,
      warmupRequests: 0,
      gracefulStopMs: 30_000,
      request: { stream: true, stream_options: { include_usage: true } },
      requestExtra: {},
      prompt: {
        inputTokens: { dist: 'fixed', value: 128 },
        outputTokens: null,
        sharedPrefixTokens: 0,
        system: null,
        dataset: null,
      },
      timeouts: { connectMs: 10_000, headersMs: 60_000, firstTokenMs: 60_000, idleMs: 30_000, totalMs: 600_000 },
      retry: { maxAttempts: 1, on: ['http_429', 'http_5xx', 'connect', 'reset'], backoffMs: 500 },
      encoding: { contentType: 'json', gzip: false },
      seed: 1,
    });
    expect(profile.thresholds).toEqual([]);
    expect(profile.slo).toEqual({});
    expect(profile.compare).toEqual({ tolerances: {} });
    expect(profile.groups).toEqual([{ index: 0, scenario: 's', model: null, tier: null, key: 's/*/-' }]);
  });

  it('takes the duration of stages when none is given', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: s\n    load: { stages: [{ duration: 2s, concurrency: 4 }, { duration: 1m, concurrency: 8 }] }\n',
      'p.yaml',
    );
    expect(profile.scenarios[0]!.durationMs).toBe(62_000);
    expect(profile.scenarios[0]!.load).toEqual({
      mode: 'concurrency',
      concurrency: 8,
      stages: [
        { durationMs: 2000, target: 4, ramp: 'linear' },
        { durationMs: 60_000, target: 8, ramp: 'linear' },
      ],
    });
  });

  it('lets stream be turned off and accepts bare seconds and fractional units', () => {
    const p = resolveProfileText(
      'scenarios:\n  - name: s\n    duration: 1.5\n    warmup: 0.5m\n    request: { stream: false }\n',
      'p.yaml',
    );
    expect(p.scenarios[0]!.durationMs).toBe(1500);
    expect(p.scenarios[0]!.warmupMs).toBe(30_000);
    expect(p.scenarios[0]!.request.stream).toBe(false);
  });

  it('resolves emulator_config and dataset paths against the profile folder', () => {
    const profile = loadProfile(resolve(FIXTURES, 'with-dataset.yaml'));
    expect(profile.target.emulatorConfig).toBe(resolve(FIXTURES, 'emulator.yaml'));
    expect(profile.scenarios[0]!.prompt.dataset).toEqual({
      path: resolve(FIXTURES, 'prompts.jsonl'),
      field: 'text',
      format: 'auto',
      outputTokens: 'prompt',
      minInputTokens: null,
      maxInputTokens: null,
      minOutputTokens: null,
      maxOutputTokens: null,
      sample: 'cycle',
      limit: null,
    });
  });

  it('fills normal/lognormal bounds and keeps explicit ones', () => {
    const p = resolveProfileText(
      'scenarios:\n  - name: s\n    duration: 1s\n    prompt: { input_tokens: { dist: lognormal, mean: 100, stddev: 10, min: 50, max: 150 }, output_tokens: { dist: fixed, value: 7 } }\n',
      'p.yaml',
    );
    expect(p.scenarios[0]!.prompt.inputTokens).toEqual({ dist: 'lognormal', mean: 100, stddev: 10, min: 50, max: 150 });
    expect(p.scenarios[0]!.prompt.outputTokens).toEqual({ dist: 'fixed', value: 7 });
  });
});

describe('loadProfile: problems', () => {
  it('names the line and column of an unknown key', () => {
    expect(problems('scenarios:\n  - name: s\n    duration: 5s\n    lod: { mode: rate }\n')).toEqual([
      'p.yaml:4:5: scenarios[0].lod: unknown key (did you mean "load"?)',
    ]);
    expect(problems('nme: x\nscenarios:\n  - name: s\n    duration: 5s\n')).toEqual([
      'p.yaml:1:1: nme: unknown key (did you mean "name"?)',
    ]);
    expect(problems(`${MINIMAL}    load: { mode: rate, rate: 5, arival: poisson }\n`)).toEqual([
      'p.yaml:4:34: scenarios[0].load.arival: unknown key (did you mean "arrival"?)',
    ]);
    expect(problems(`${MINIMAL}    prompt: { input_tokens: { dist: uniform, min: 1, max: 2, mean: 3 } }\n`)).toEqual([
      'p.yaml:4:62: scenarios[0].prompt.input_tokens.mean: unknown key; expected one of dist, min, max',
    ]);
    expect(
      problems(`${MINIMAL}    prompt: { output_tokens: { dist: lognormal, mean: 9, stddev: 2, value: 3 } }\n`),
    ).toEqual([
      'p.yaml:4:69: scenarios[0].prompt.output_tokens.value: unknown key; expected one of dist, mean, stddev, min, max',
    ]);
    expect(problems(`${MINIMAL}banana: 1\n`)).toEqual([
      'p.yaml:4:1: banana: unknown key; expected one of name, target, defaults, scenarios, thresholds, fail_on_invalid, stop_when_decided, slo, capacity, deadlines, pricing, live, compare',
    ]);
    expect(problems(`${MINIMAL}compare: { tolerance: {} }\n`)).toEqual([
      'p.yaml:4:12: compare.tolerance: unknown key (did you mean "tolerances"?)',
    ]);
  });

  it('lists every problem of a file at once, in line order, with the file name', () => {
    const path = resolve(FIXTURES, 'many-errors.yaml');
    let message = '';
    try {
      loadProfile(path);
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe(`${path}: 7 problems:`);
    expect(lines.slice(1).map((l) => l.trim().replace(`${path}:`, ''))).toEqual([
      '4:3: defaults.duraton: unknown key (did you mean "duration"?)',
      '7:45: scenarios[0].load.concurrency: Too small: expected number to be >=1',
      '8:15: scenarios[0].duration: expected a duration like "30s", "250ms", "2m" or a number of seconds',
      '9:13: scenarios[0].tiers[0]: Invalid option: expected one of "priority"|"default"|"auto"|"flex"',
      '10:11: scenarios[1].name: duplicate scenario name "steady" (also scenarios[0])',
      '12:15: scenarios[1].prompt.input_tokens.stddev: required (number)',
      '13:14: thresholds[0]: "ttft_ms < 800": ttft_ms needs a stat (p1, p50, p90, p95, p99, p999, mean, min, max), e.g. "ttft_ms.p99"',
    ]);
  });

  it('rejects bad values of each kind of key', () => {
    const cases: [string, RegExp][] = [
      ['name: "has space"\n', /^p\.yaml:4:7: name: expected a name/],
      ['target: { base_url: "ftp://x" }\n', /target\.base_url: expected an http\(s\) URL/],
      ['target: { api_key_env: "sk-secret" }\n', /target\.api_key_env: expected the NAME of an environment variable/],
      [
        'target: { headers: { Authorization: "Bearer x" } }\n',
        /target\.headers\.Authorization: keys never go in a profile/,
      ],
      ['target: { headers: { X-Api-Key: "k" } }\n', /target\.headers\.X-Api-Key: keys never go in a profile/],
      [
        'target: { base_url: "http://x", emulator_config: e.yaml }\n',
        /target\.emulator_config: applies only to the embedded emulator/,
      ],
      ['target: { emulator_config: missing.yaml }\n', /target\.emulator_config: file not found/],
      ['defaults: { request: { model: x } }\n', /defaults\.request\.model: model is set by scenarios\[\]\.models/],
      ['defaults: { request: { messages: [] } }\n', /defaults\.request\.messages: messages are built by the workload/],
      [
        'defaults: { request: { service_tier: flex } }\n',
        /defaults\.request\.service_tier: service_tier is set by scenarios\[\]\.tiers/,
      ],
      ['defaults: { request: { stream: "yes" } }\n', /defaults\.request\.stream: expected boolean, received string/],
      ['defaults: { request: { max_completion_tokens: 0 } }\n', /defaults\.request\.max_completion_tokens: Too small/],
      ['defaults: { load: { mode: closed } }\n', /defaults\.load\.mode: Invalid option/],
      ['defaults: { load: { mode: rate, rate: 5, arrival: burst } }\n', /defaults\.load\.arrival: Invalid option/],
      ['defaults: { load: { mode: rate } }\n', /defaults\.load: mode rate needs rate \(or stages\)/],
      ['defaults: { load: { mode: concurrency } }\n', /defaults\.load: mode concurrency needs concurrency/],
      [
        'defaults: { load: { mode: concurrency, concurrency: 2, rate: 3 } }\n',
        /defaults\.load\.rate: applies to mode: rate only/,
      ],
      [
        'defaults: { load: { mode: rate, rate: 2, concurrency: 3 } }\n',
        /defaults\.load\.concurrency: applies to mode: concurrency/,
      ],
      [
        'defaults: { load: { mode: rate, rate: 2, burstiness: 0.5 } }\n',
        /defaults\.load\.burstiness: applies to arrival: gamma only/,
      ],
      [
        'defaults: { load: { mode: rate, rate: 2, burstiness: 0 , arrival: gamma} }\n',
        /defaults\.load\.burstiness: Too small/,
      ],
      [
        'defaults: { load: { mode: rate, stages: [{ duration: 1s, concurrency: 3 }] } }\n',
        /defaults\.load\.stages\[0\]: a stage of a mode rate load needs rate/,
      ],
      [
        'defaults: { load: { stages: [{ duration: 1s, concurrency: 3, ramp: smooth }] } }\n',
        /defaults\.load\.stages\[0\]\.ramp: Invalid option/,
      ],
      ['defaults: { load: { stages: [] } }\n', /defaults\.load\.stages: Too small/],
      ['defaults: { requests: 1.5 }\n', /defaults\.requests: expected int/],
      [
        'defaults: { warmup: 1s, warmup_requests: 3 }\n',
        /defaults\.warmup_requests: set warmup or warmup_requests, not both/,
      ],
      ['defaults: { graceful_stop: -1 }\n', /defaults\.graceful_stop: /],
      ['defaults: { prompt: { input_tokens: 0 } }\n', /defaults\.prompt\.input_tokens: Too small/],
      [
        'defaults: { prompt: { input_tokens: { dist: uniform, min: 9, max: 3 } } }\n',
        /defaults\.prompt\.input_tokens: min \(9\) is greater than max \(3\)/,
      ],
      [
        'defaults: { prompt: { input_tokens: { dist: zipf } } }\n',
        /defaults\.prompt\.input_tokens\.dist: Invalid discriminator value/,
      ],
      [
        'defaults: { prompt: { input_tokens: { dist: fixed, value: 3, mean: 2 } } }\n',
        /defaults\.prompt\.input_tokens\.mean: unknown key/,
      ],
      [
        'defaults: { prompt: { input_tokens: "many" } }\n',
        /defaults\.prompt\.input_tokens: expected a number of tokens or/,
      ],
      ['defaults: { prompt: { shared_prefix_tokens: -1 } }\n', /defaults\.prompt\.shared_prefix_tokens: Too small/],
      ['defaults: { prompt: { system: 3 } }\n', /defaults\.prompt\.system: expected string/],
      ['defaults: { prompt: { dataset: { path: nope.jsonl } } }\n', /defaults\.prompt\.dataset\.path: file not found/],
      ['defaults: { prompt: { dataset: { field: text } } }\n', /defaults\.prompt\.dataset\.path: required \(string\)/],
      ['defaults: { timeouts: { idle: soon } }\n', /defaults\.timeouts\.idle: expected a duration/],
      ['defaults: { timeouts: { read: 1s } }\n', /defaults\.timeouts\.read: unknown key/],
      ['defaults: { retry: { max_attempts: 0 } }\n', /defaults\.retry\.max_attempts: Too small/],
      ['defaults: { retry: { on: [http_418] } }\n', /defaults\.retry\.on\[0\]: Invalid option/],
      ['defaults: { encoding: { content_type: xml } }\n', /defaults\.encoding\.content_type: Invalid option/],
      ['defaults: { encoding: { gzip: 1 } }\n', /defaults\.encoding\.gzip: expected boolean/],
      ['defaults: { seed: -1 }\n', /defaults\.seed: Too small/],
      ['defaults: { models: [a, a] }\n', /defaults\.models\[1\]: "a" is listed twice/],
      ['defaults: { tiers: [flex, flex] }\n', /defaults\.tiers\[1\]: "flex" is listed twice/],
      ['defaults: { models: [""] }\n', /defaults\.models\[0\]: Too small/],
      ['thresholds: ["ttft_ms.p42 < 1"]\n', /thresholds\[0\]: .*unknown stat "p42"/],
      ['thresholds: ["other/*/-: error_rate < 1"]\n', /thresholds\[0\]: group "other\/\*\/-" names no scenario/],
      ['thresholds: "ttft_ms.p99 < 1"\n', /thresholds: expected array/],
      ['slo: { ttft.p99: 5 }\n', /slo\["ttft\.p99"\]: bad key: expected metric\.stat/],
      ['slo: { ttft_ms.p99: fast }\n', /slo\["ttft_ms\.p99"\]: expected number/],
      [
        'compare: { tolerances: { ttft_ms.p99: "ten percent" } }\n',
        /compare\.tolerances\["ttft_ms\.p99"\]: expected a tolerance like "10%"/,
      ],
    ];
    for (const [extra, expected] of cases) {
      const found = problems(`${MINIMAL}${extra}`);
      expect(found.join('\n'), extra).toMatch(expected);
    }
  });

  it('needs scenarios, a scenario name and a limit', () => {
    expect(problems('name: x\n')).toEqual(['p.yaml:1:1: scenarios: required (array)']);
    expect(problems('scenarios: []\n')).toEqual(['p.yaml:1:12: scenarios: a profile needs at least one scenario']);
    expect(problems('scenarios:\n  - duration: 1s\n')).toEqual(['p.yaml:2:5: scenarios[0].name: required (string)']);
    expect(problems('scenarios:\n  - name: s\n')).toEqual([
      'p.yaml:2:5: scenarios[0]: needs duration and/or requests (here or in defaults)',
    ]);
    expect(problems('')).toEqual(['p.yaml:1:1: scenarios: required (array)']);
  });

  it('reports YAML syntax errors with their line', () => {
    let error: unknown;
    try {
      resolveProfileText('scenarios:\n  - name: [s\n  duration: 1s\n', 'bad.yaml');
    } catch (e) {
      error = e;
    }
    expect(isInferbenchError(error) && error.code).toBe('BAD_PROFILE');
    expect((error as Error).message).toMatch(/^bad\.yaml is not valid YAML:\n {2}bad\.yaml:\d+:\d+: YAML: /);
  });

  it('reports duplicate keys', () => {
    expect(() => resolveProfileText(`${MINIMAL}    duration: 6s\n`, 'p.yaml')).toThrow(
      /p\.yaml:4:\d+: YAML: Map keys must be unique/,
    );
  });

  it('reports an unreadable file as BAD_PROFILE', () => {
    expect(() => loadProfile(resolve(FIXTURES, 'does-not-exist.yaml'))).toThrow(
      /cannot read profile .*does-not-exist\.yaml: ENOENT/,
    );
  });
});

describe('--set overrides', () => {
  it('sets nested fields, array items and creates missing parents', () => {
    const p = resolveProfileText(MINIMAL, 'p.yaml', [
      'scenarios[0].load.concurrency=12',
      'defaults.request.temperature=0.25',
      'scenarios[0].models=[a, b]',
      'scenarios[0].tiers=[flex]',
      'scenarios[0].prompt={ input_tokens: { dist: uniform, min: 5, max: 9 } }',
      'scenarios[0].duration=2m',
      'name=renamed',
      'target.headers.X-Team=a=b',
    ]);
    expect(p.name).toBe('renamed');
    expect(p.scenarios[0]!.load).toEqual({ mode: 'concurrency', concurrency: 12, stages: null });
    expect(p.scenarios[0]!.request).toEqual({
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.25,
    });
    expect(p.scenarios[0]!.prompt.inputTokens).toEqual({ dist: 'uniform', min: 5, max: 9 });
    expect(p.scenarios[0]!.durationMs).toBe(120_000);
    expect(p.groups.map((g) => g.key)).toEqual(['s/a/flex', 's/b/flex']);
    // Only the first "=" separates the path from the value.
    expect(p.target.headers).toEqual({ 'X-Team': 'a=b' });
  });

  it('overrides a single array element and keeps the others', () => {
    const p = resolveProfileText('scenarios:\n  - name: s\n    duration: 1s\n    models: [a, b, c]\n', 'p.yaml', [
      'scenarios[0].models[1]=z',
    ]);
    expect(p.scenarios[0]!.models).toEqual(['a', 'z', 'c']);
  });

  it('treats the rest of an slo or tolerance path as one dotted key', () => {
    const p = resolveProfileText(MINIMAL, 'p.yaml', [
      'slo.ttft_ms.p99=250',
      'compare.tolerances.e2e_ms.p50=15%',
      'slo["itl_ms.p90"]=20',
    ]);
    expect(p.slo).toEqual({ 'ttft_ms.p99': 250, 'itl_ms.p90': 20 });
    expect(p.compare.tolerances).toEqual({ 'e2e_ms.p50': '15%' });
  });

  it('names the --set argument for a path that the schema does not know or a bad value', () => {
    expect(problems(MINIMAL, ['scenarios[0].lod.rate=3'])).toEqual([
      '--set scenarios[0].lod.rate=3: scenarios[0].lod: unknown key (did you mean "load"?)',
    ]);
    expect(problems(MINIMAL, ['scenarios[0].load.concurrency=lots'])).toEqual([
      '--set scenarios[0].load.concurrency=lots: scenarios[0].load.concurrency: expected number, received string',
    ]);
    expect(problems(MINIMAL, ['scenarios[2].name=x'])).toEqual([
      '--set scenarios[2].name=x: scenarios[2].name: index 2 is out of range (the list has 1 item)',
    ]);
    expect(problems(MINIMAL, ['scenarios.name=x'])).toEqual([
      '--set scenarios.name=x: scenarios.name: "name" is a key, but its parent is not a mapping',
    ]);
    expect(problems(MINIMAL, ['name[0]=x'])).toEqual([
      '--set name[0]=x: name[0]: there is no list at "name" to index; set the whole list instead, e.g. name=[...]',
    ]);
    expect(problems(MINIMAL, ['scenarios[0].name[0]=x'])).toEqual([
      '--set scenarios[0].name[0]=x: scenarios[0].name[0]: [0] indexes a list, but this field is not a list',
    ]);
    expect(problems(MINIMAL, ['no-equals-sign'])).toEqual([
      '--set no-equals-sign: (profile): expected path=value, e.g. scenarios[0].load.rate=20',
    ]);
    expect(problems(MINIMAL, ['scenarios..x=1'])[0]).toMatch(
      /^--set scenarios\.\.x=1: \(profile\): cannot read the path at/,
    );
  });

  it('lists override problems together with the file problems', () => {
    const found = problems(`${MINIMAL}    lod: 1\n`, ['scenarios[0].seed=-5']);
    expect(found).toEqual([
      'p.yaml:4:5: scenarios[0].lod: unknown key (did you mean "load"?)',
      '--set scenarios[0].seed=-5: scenarios[0].seed: Too small: expected number to be >=0',
    ]);
  });

  it('lets an override fix a problem of the file', () => {
    const p = resolveProfileText('scenarios:\n  - name: s\n', 'p.yaml', ['scenarios[0].requests=10']);
    expect(p.scenarios[0]!.requests).toBe(10);
  });
});
