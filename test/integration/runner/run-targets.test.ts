/**
 * The runner against purpose-built targets: a known-timing server (the numbers it reports are the
 * server's; open loop beyond max_concurrency counts drops; the graceful stop aborts what outlives it) and
 * the emulator in its own process (a real API key, right and wrong, never appears in any output).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnownTimingServer } from '../../helpers/known-timing/known-timing-server.js';
import type { KnownTimingServer } from '../../helpers/known-timing/known-timing-server.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { startEmulatorProcess } from '../../helpers/emulator-process.js';
import type { EmulatorProcess } from '../../helpers/emulator-process.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-runner-');

/**
 * Writes a profile that counts with the tiny tokenizer: every target here reports usage, and o200k would
 * take seconds to load for prompts these tests do not count.
 */
function writeProfile(name: string, yaml: string): string {
  return folder.writeProfile(name, `target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n${yaml}`);
}

function csvRows(runDir: string): string[][] {
  return readFileSync(join(runDir, 'requests.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(','));
}

describe('against a known-timing server', () => {
  let server: KnownTimingServer;

  beforeAll(async () => {
    server = await startKnownTimingServer({ ttftMs: 40, itlMs: 5, tokens: 12, model: 'known-timing' });
  });

  afterAll(async () => {
    await server.close();
  });

  it('reports the server timing, exact token counts and time_info', async () => {
    const out = join(folder.dir, 'known');
    const profile = writeProfile(
      'known',
      `name: known
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 4 }
    requests: 40
    request: { max_completion_tokens: 12 }
    prompt: { input_tokens: 16 }
`,
    );
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code).toBe(0);
    const summary = readSummary(out);
    const group = summary.groups[0]!;
    // No models in the profile: the first id of GET /v1/models.
    expect(group.key).toBe('s/known-timing/-');
    expect(group.requests.ok).toBe(40);
    expect(group.metrics.output_tokens!.min).toBe(12);
    expect(group.metrics.output_tokens!.max).toBe(12);
    // Generous bounds (a shared, loaded machine); the benchmark measures the 1 ms accuracy.
    expect(group.metrics.ttft_ms!.p50).toBeGreaterThanOrEqual(39);
    expect(group.metrics.ttft_ms!.p50).toBeLessThan(40 + 60);
    expect(group.metrics.e2e_ms!.p50).toBeGreaterThanOrEqual(40 + 11 * 5 - 1);
    expect(group.metrics.total_time_ms!.p50).toBeCloseTo(server.timeInfo.total_time * 1000, 0);
    const rows = csvRows(out);
    const header = rows[0]!;
    const totalTime = header.indexOf('total_time_ms');
    for (const row of rows.slice(1))
      expect(Number(row[totalTime])).toBe(Math.round(server.timeInfo.total_time * 1e6) / 1000);
  });

  it('counts open-loop arrivals beyond max_concurrency as dropped', async () => {
    const slow = await startKnownTimingServer({ ttftMs: 400, itlMs: 50, tokens: 4, model: 'slow' });
    try {
      const out = join(folder.dir, 'dropped');
      const profile = writeProfile(
        'dropped',
        `name: dropped
scenarios:
  - name: s
    models: [slow]
    load: { mode: rate, rate: 40, arrival: constant, max_concurrency: 2 }
    duration: 2s
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 8 }
`,
      );
      const result = await runCliInProcess(['run', profile, '--base-url', slow.url, '--out', out], { cwd: folder.dir });
      expect(result.code).toBe(0);
      const group = readSummary(out).groups[0]!;
      // 80 arrivals in 2 s; at most 2 in flight, each ~550 ms: at most ~10 sent, the rest dropped.
      expect(group.requests.dropped).toBeGreaterThan(40);
      expect(group.requests.ok).toBeGreaterThan(0);
      expect(group.requests.ok + group.requests.dropped).toBeLessThanOrEqual(81);
      expect(result.stdout).toMatch(/dropped/);
    } finally {
      await slow.close();
    }
  });

  it('aborts what outlives the graceful stop and counts it as timeouts of phase total', async () => {
    const stuck = await startKnownTimingServer({ ttftMs: 10, itlMs: 1000, tokens: 30, model: 'stuck' });
    try {
      const out = join(folder.dir, 'graceful');
      const profile = writeProfile(
        'graceful',
        `name: graceful
scenarios:
  - name: s
    models: [stuck]
    load: { mode: concurrency, concurrency: 3 }
    duration: 500ms
    graceful_stop: 300ms
    request: { max_completion_tokens: 30 }
    prompt: { input_tokens: 8 }
`,
      );
      const started = performance.now();
      const result = await runCliInProcess(['run', profile, '--base-url', stuck.url, '--out', out], {
        cwd: folder.dir,
      });
      expect(performance.now() - started).toBeLessThan(15_000);
      const group = readSummary(out).groups[0]!;
      expect(group.requests.errors['timeout']).toBe(3);
      expect(result.code).toBe(3);
      const rows = csvRows(out);
      const phase = rows[0]!.indexOf('timeout_phase');
      expect(rows.slice(1).map((row) => row[phase])).toEqual(['total', 'total', 'total']);
    } finally {
      await stuck.close();
    }
  });
});

describe('request headers', () => {
  /** Records the headers of every chat completion and answers with a minimal two-token stream. */
  async function startHeaderRecorder(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'rec', object: 'model', created: 0, owned_by: 'x' }] }));
        return;
      }
      // The price catalog, asked when the profile prices nothing: this server has none.
      if (req.url?.startsWith('/public/v1/models')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"not found"}');
        return;
      }
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'rec', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
        res.write(chunk({ content: 'a' }, null));
        res.end(
          chunk({ content: ' b' }, 'stop', { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      seen,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  const text = (headers: string) => `name: headers
target: { headers: ${headers}, tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 1 }
    requests: 3
`;

  it('carry the integration tag, version patch 2 and the key from the environment', async () => {
    const recorder = await startHeaderRecorder();
    try {
      const out = join(folder.dir, 'headers-default');
      const result = await runCliInProcess(
        [
          'run',
          folder.writeProfile('headers-default', text('{ X-Custom: "yes" }')),
          '--base-url',
          recorder.url,
          '--out',
          out,
        ],
        {
          cwd: folder.dir,
          env: { INFERENCE_API_KEY: 'sk-env-key', PATH: process.env.PATH },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(recorder.seen).toHaveLength(3);
      const version = (
        JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
      for (const headers of recorder.seen) {
        expect(headers['x-service-3rd-party-integration']).toBe(`inferbench/${version}`);
        expect(headers['x-service-version-patch']).toBe('2');
        expect(headers['x-custom']).toBe('yes');
        expect(headers['authorization']).toBe('Bearer sk-env-key');
      }
    } finally {
      await recorder.close();
    }
  });

  it('are overridden by target.headers, whatever their case', async () => {
    const recorder = await startHeaderRecorder();
    try {
      const out = join(folder.dir, 'headers-override');
      const profile = folder.writeProfile(
        'headers-override',
        text('{ x-service-version-patch: "3", X-SERVICE-3RD-PARTY-INTEGRATION: "mine/1" }'),
      );
      const result = await runCliInProcess(['run', profile, '--base-url', recorder.url, '--out', out], {
        cwd: folder.dir,
      });
      expect(result.code, result.stderr).toBe(0);
      for (const headers of recorder.seen) {
        expect(headers['x-service-version-patch']).toBe('3');
        expect(headers['x-service-3rd-party-integration']).toBe('mine/1');
        expect(headers['authorization']).toBeUndefined();
      }
    } finally {
      await recorder.close();
    }
  });
});

describe('API keys against the emulator in its own process', () => {
  const RIGHT = 'sk-right-KEY-3f9a1c77e2';
  const WRONG = 'sk-wrong-KEY-8d2b44a0c1';
  let emulator: EmulatorProcess;

  beforeAll(async () => {
    emulator = await startEmulatorProcess(['--api-key', RIGHT]);
  });

  afterAll(async () => {
    await emulator.stop();
  });

  const profileText = `name: keys
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 6
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 8 }
`;

  function expectNowhere(key: string, out: string, texts: string[]): void {
    for (const text of texts) expect(text).not.toContain(key);
    for (const file of readdirSync(out)) expect(readFileSync(join(out, file), 'utf8')).not.toContain(key);
  }

  it('never writes the key that worked', async () => {
    const out = join(folder.dir, 'key-right');
    const result = await runCliInProcess(
      ['run', writeProfile('keys', profileText), '--base-url', emulator.url, '--out', out, '--api-key-env', 'MY_KEY'],
      {
        cwd: folder.dir,
        env: { MY_KEY: RIGHT, PATH: process.env.PATH },
      },
    );
    expect(result.code).toBe(0);
    expect(readSummary(out).groups[0]!.requests.ok).toBe(6);
    expectNowhere(RIGHT, out, [result.stdout, result.stderr]);
  });

  it('never writes a rejected key, and exits 3 when every request failed', async () => {
    const out = join(folder.dir, 'key-wrong');
    const result = await runCliInProcess(
      ['run', writeProfile('keys', profileText), '--base-url', emulator.url, '--out', out],
      {
        cwd: folder.dir,
        env: { INFERENCE_API_KEY: WRONG, PATH: process.env.PATH },
      },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/every request failed|401|API key/i);
    expectNowhere(WRONG, out, [result.stdout, result.stderr]);
  });
});
