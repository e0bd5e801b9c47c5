/**
 * The live views of a run against a server that echoes the API key everywhere it can (headers, error
 * bodies, in-stream errors, ids): the key is in no byte of /metrics, the dashboard's page and /state (the
 * run's end with its summary too), nor stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliContext } from '../../src/cli/context.js';
import { MemoryStream } from '../helpers/cli.js';
import type { TestServer } from '../helpers/fault-servers.js';
import { startKeyEchoServer } from '../helpers/key-echo-server.js';
import { useRunFolder } from '../helpers/run-folder.js';

const KEY = 'sk-live-L1veV1ewsN0tH3re';
const folder = useRunFolder('inferbench-live-secrets-');

describe('live views against a server that echoes the key', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startKeyEchoServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('show the key nowhere, during the run and at its end', async () => {
    const profile = folder.writeProfile(
      'echo',
      `name: echo
scenarios:
  - name: streamed
    models: [echo-model]
    load: { mode: concurrency, concurrency: 2 }
    requests: 24
    prompt: { input_tokens: 4, output_tokens: 2 }
live: { metrics_linger: 20s }
`,
    );
    const stderr = new MemoryStream();
    const ctx: CliContext = {
      stdout: new MemoryStream(),
      stderr,
      env: { PATH: process.env.PATH, INFERENCE_API_KEY: KEY },
      cwd: folder.dir,
      interrupt: new AbortController().signal,
      exitCode: 0,
    };
    const argv = ['run', profile, '--base-url', server.url, '--out', `${folder.dir}/run`, '--quiet'];
    const run = runCli([...argv, '--metrics-port', '0', '--dashboard', '0'], ctx);
    // While /metrics waits for its last scrape the run has ended and the dashboard still serves its end.
    let metrics: string | undefined;
    while (metrics === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      metrics = /keeping (http:\/\/\S+\/metrics) up/.exec(stderr.text)?.[1];
    }
    const dashboard = /dashboard: (http:\/\/\S+\/)/.exec(stderr.text)?.[1] as string;
    const state = await (await fetch(`${dashboard}state`)).text();
    const page = await (await fetch(dashboard)).text();
    const exposition = await (await fetch(metrics)).text();
    expect(await run).toBe(0);
    // The server did echo the key, and the end reached the views, so the search means something.
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(JSON.parse(state).end.summary.groups[0].failed).toBeGreaterThan(0);
    expect(exposition).toMatch(/inferbench_run_ended\{shard=""\} 1/);
    for (const [where, text] of Object.entries({ state, page, exposition, stderr: stderr.text }))
      expect(text.includes(KEY), `the key in ${where}`).toBe(false);
  }, 30_000);
});
