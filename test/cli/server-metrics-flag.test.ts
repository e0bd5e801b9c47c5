/**
 * `--server-metrics URL` on the command line, in-process: `validate` shows the endpoint it adds (and
 * --json the resolved endpoint, patterns as written); `run` and `capacity` take the flag and refuse a bad
 * URL with exit 2 naming the flag, before anything starts (a capacity search that scrapes:
 * capacity-server-metrics.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-server-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const profile = join(dir, 'p.yaml');
writeFileSync(
  profile,
  'target:\n  server_metrics: [{ url: http://a:8000/metrics, metrics: ["/^vllm:spec/"] }]\nscenarios:\n  - name: s\n    duration: 2s\n',
);

describe('--server-metrics URL', () => {
  it("validate shows the endpoint it adds after the profile's, with the defaults", async () => {
    const result = await runCliInProcess([
      'validate',
      profile,
      '--server-metrics',
      'http://dcgm:9400/metrics',
      '--server-metrics',
      'http://b/metrics',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'server metrics:\n  http://a:8000/metrics: preset auto, every 1.0s, timeout 800ms, also /^vllm:spec/\n  http://dcgm:9400/metrics: preset auto, every 1.0s, timeout 800ms\n  http://b/metrics: preset auto, every 1.0s, timeout 800ms\n',
    );
    const json = await runCliInProcess(['validate', profile, '--json', '--server-metrics', 'http://b/metrics']);
    const endpoints = JSON.parse(json.stdout).profile.target.serverMetrics;
    expect(endpoints.map((e: { url: string }) => e.url)).toEqual(['http://a:8000/metrics', 'http://b/metrics']);
    expect(endpoints[0].metrics).toEqual(['/^vllm:spec/']);
  });

  it('run refuses a bad URL with exit 2 naming the flag', async () => {
    const result = await runCliInProcess(['run', profile, '--server-metrics', 'not-a-url']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--server-metrics not-a-url: target\.server_metrics\[1\]\.url: expected an http\(s\) URL/,
    );
  });

  it("run takes the flag more than once: each adds an endpoint after the profile's", async () => {
    const result = await runCliInProcess([
      'run',
      profile,
      '--server-metrics',
      'http://dcgm:9400/metrics',
      '--server-metrics',
      'not-a-url',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--server-metrics not-a-url: target\.server_metrics\[2\]\.url: expected an http\(s\) URL/,
    );
  });

  it('capacity takes the flag too, more than once, and refuses a bad URL with exit 2 naming it', async () => {
    const result = await runCliInProcess([
      'capacity',
      profile,
      '--server-metrics',
      'http://dcgm:9400/metrics',
      '--server-metrics',
      'not-a-url',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--server-metrics not-a-url: target\.server_metrics\[2\]\.url: expected an http\(s\) URL/,
    );
  });
});
