/**
 * The API key never leaves the harness or the emulator. (1) A run against a server that echoes the key in
 * response headers, `x-request-id`, 4xx and 5xx error bodies (message, param, code), an in-stream error
 * event and the response id: the key appears in no byte of stdout, stderr or any file of the run folder
 * (summary.json, requests.csv, summary.csv, timeseries.csv, breakdowns.csv, report.html, JUnit, markdown).
 * (2) `inferbench serve --api-key K --management-key M`: neither K, M nor a rejected key appears in the
 * emulator's stdout or stderr, whatever it was asked (right key, wrong key, key in x-request-id).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startEmulatorProcess } from '../helpers/emulator-process.js';
import type { TestServer } from '../helpers/fault-servers.js';
import { startKeyEchoServer } from '../helpers/key-echo-server.js';
import { readSummary } from '../helpers/run-folder.js';

const KEY = 'sk-live-q7Zt3vP9xK2mW8rB';
const MANAGEMENT_KEY = 'mk-live-H4nD8sJ2fL6tY1cV';
const WRONG_KEY = 'sk-wrong-R5eU0oI3aS7dF9gQ';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-secrets-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under `dir`, recursively, with its text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

function expectKeyNowhere(key: string, texts: Record<string, string>): void {
  for (const [where, text] of Object.entries(texts)) expect(text.includes(key), `${key} in ${where}`).toBe(false);
}

describe('a run against a server that echoes the key everywhere', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startKeyEchoServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('writes the key to no output: stdout, stderr, and every file of the run folder', async () => {
    const out = join(root, 'echo-run');
    const profile = join(root, 'echo.yaml');
    writeFileSync(
      profile,
      `name: echo
scenarios:
  - name: streamed
    models: [echo-model]
    load: { mode: concurrency, concurrency: 2 }
    requests: 24
    prompt: { input_tokens: 4, output_tokens: 2 }
    session: { turns: 2, user_tokens: 4 }
  - name: whole
    models: [echo-model]
    request: { stream: false }
    load: { mode: concurrency, concurrency: 2 }
    requests: 12
    prompt: { input_tokens: 4, output_tokens: 2 }
`,
    );
    const junit = join(out, 'junit.xml');
    const markdown = join(out, 'summary.md');
    const argv = ['run', profile, '--base-url', server.url, '--out', out, '--junit', junit, '--markdown', markdown];
    const result = await runCliInProcess(argv, { cwd: root, env: { PATH: process.env.PATH, INFERENCE_API_KEY: KEY } });
    // Some requests succeeded: the run is complete and its outputs all written.
    expect(result.code, result.stderr).toBe(0);
    // The server did get the key, and did answer every kind of echo, so the search below means something.
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    const errors = readSummary(out).groups.map((g) => g.requests.errors);
    const classes = new Set(errors.flatMap((e) => Object.keys(e).filter((c) => (e[c] ?? 0) > 0)));
    expect([...classes].sort()).toEqual(expect.arrayContaining(['http_429', 'http_4xx', 'http_5xx', 'stream_error']));
    const files = filesUnder(out);
    const names = files.map((f) => f.path.slice(out.length + 1));
    expect(names).toEqual(
      expect.arrayContaining(['summary.json', 'requests.csv', 'summary.csv', 'timeseries.csv', 'report.html']),
    );
    // Sessions label each request with its turn: breakdowns.csv is written too.
    expect(names).toEqual(expect.arrayContaining(['breakdowns.csv', 'junit.xml', 'summary.md']));
    // The error messages are there, with the key masked.
    expect(readFileSync(join(out, 'requests.csv'), 'utf8')).toContain('Invalid key ***');
    expectKeyNowhere(KEY, {
      stdout: result.stdout,
      stderr: result.stderr,
      ...Object.fromEntries(files.map((f) => [f.path, f.text])),
    });
  });
});

describe('inferbench serve --api-key: its own logs', () => {
  it('never print a configured key, the management key or a rejected key', async () => {
    const emulator = await startEmulatorProcess(['--api-key', KEY, '--management-key', MANAGEMENT_KEY]);
    let stdout = `${emulator.url}\n`;
    emulator.child.stdout!.on('data', (text: string) => (stdout += text));
    try {
      const chat = (key: string, extra: Record<string, string> = {}) =>
        fetch(`${emulator.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra },
          body: JSON.stringify({
            model: 'small-fast-8b',
            messages: [{ role: 'user', content: 'hi' }],
            max_completion_tokens: 2,
          }),
        });
      const ok = await chat(KEY, { 'x-request-id': KEY });
      expect(ok.status).toBe(200);
      await ok.text();
      const rejected = await chat(WRONG_KEY, { 'x-request-id': WRONG_KEY });
      expect(rejected.status).toBe(401);
      const body = await rejected.text();
      // The 401 names the problem but does not repeat the key it refused.
      expect(body).toMatch(/wrong_api_key/);
      expect(body).not.toContain(WRONG_KEY);
      const management = await fetch(`${emulator.url}/management/v1/orgs/local/endpoints`, {
        headers: { authorization: `Bearer ${WRONG_KEY}` },
      });
      expect(management.status).toBe(401);
      expect(await management.text()).not.toContain(WRONG_KEY);
      const managed = await fetch(`${emulator.url}/management/v1/orgs/local/endpoints`, {
        headers: { authorization: `Bearer ${MANAGEMENT_KEY}` },
      });
      expect(managed.status).toBe(200);
      await managed.text();
      // A malformed body from a client with the right key: the 400 says what is wrong, not who sent it.
      const malformed = await fetch(`${emulator.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-request-id': KEY },
        body: '{"model":',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.text()).not.toContain(KEY);
    } finally {
      await emulator.stop();
    }
    // The startup lines said how keys are checked (so stderr is the log being searched), never the keys.
    expect(emulator.stderr()).toContain('1 API key(s) configured');
    expectKeyNowhere(KEY, { stdout, stderr: emulator.stderr() });
    expectKeyNowhere(MANAGEMENT_KEY, { stdout, stderr: emulator.stderr() });
    expectKeyNowhere(WRONG_KEY, { stdout, stderr: emulator.stderr() });
  });
});
