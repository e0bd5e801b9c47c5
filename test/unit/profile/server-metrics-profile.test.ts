/**
 * `target.server_metrics` (profile/sections/server-metrics.ts): its defaults, its errors naming the file, line
 * and field, `--server-metrics URL` adding an endpoint (and named in errors), and what `validate` prints.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInferbenchError } from '../../../src/errors.js';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { loadProfile, resolveProfileText } from '../../../src/profile/load-profile.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const SCENARIOS = 'scenarios:\n  - name: s\n    duration: 5s\n';

describe('target.server_metrics', () => {
  it('resolves each endpoint with its defaults: auto, 1 s, a timeout of 800 ms; absent when unset', () => {
    expect(resolveProfileText(SCENARIOS, 'p.yaml', [], '/tmp').target.serverMetrics).toBeUndefined();
    const profile = resolveProfileText(
      `target:\n  server_metrics:\n    - url: http://vllm:8000/metrics\n    - url: http://dcgm:9400/metrics\n      preset: dcgm\n      interval: 2s\n      metrics: ["vllm:spec_decode_num_drafts_total", "/^DCGM_FI_PROF_/"]\n      labels: { gpu: "0", model_name: "/llama/" }\n      headers: { X-Tenant: a }\n      api_key_env: METRICS_KEY\n${SCENARIOS}`,
      'p.yaml',
      [],
      '/tmp',
    );
    const [vllm, dcgm] = profile.target.serverMetrics ?? [];
    expect(vllm).toEqual({
      url: 'http://vllm:8000/metrics',
      preset: 'auto',
      intervalMs: 1000,
      timeoutMs: 800,
      metrics: [],
      labels: {},
      headers: {},
      apiKeyEnv: null,
    });
    expect(dcgm?.preset).toBe('dcgm');
    expect(dcgm?.intervalMs).toBe(2000);
    expect(dcgm?.timeoutMs).toBe(1600);
    // Kept as written (summary.json records the profile as JSON); the scraper compiles the /regex/ ones.
    expect(dcgm?.metrics).toEqual(['vllm:spec_decode_num_drafts_total', '/^DCGM_FI_PROF_/']);
    expect(dcgm?.labels).toEqual({ gpu: '0', model_name: '/llama/' });
    expect(dcgm?.headers).toEqual({ 'X-Tenant': 'a' });
    expect(dcgm?.apiKeyEnv).toBe('METRICS_KEY');
  });

  it('names the file, line and field of each problem', () => {
    const text = `target:
  server_metrics:
    - url: ftp://x/metrics
      preset: vlm
    - url: http://ok/metrics
      interval: 1s
      timeout: 2s
      metrics: ["/([/"]
      labels: { model_name: "/[/" }
      headers: { Authorization: "Bearer x" }
      api_key_env: "not a name"
      intervall: 1s
    - url: http://fast/metrics
      interval: 10ms
${SCENARIOS}`;
    const lines = profileProblems(text, '/tmp');
    const joined = lines.join('\n');
    expect(joined).toMatch(/^p\.yaml:3:\d+: target\.server_metrics\[0\]\.url: expected an http\(s\) URL/m);
    expect(joined).toMatch(/^p\.yaml:4:\d+: target\.server_metrics\[0\]\.preset: /m);
    expect(joined).toMatch(/^p\.yaml:7:\d+: target\.server_metrics\[1\]\.timeout: at most the interval \(1\.0s\)/m);
    expect(joined).toMatch(/^p\.yaml:8:\d+: target\.server_metrics\[1\]\.metrics\[0\]: not a valid regex/m);
    expect(joined).toMatch(/^p\.yaml:9:\d+: target\.server_metrics\[1\]\.labels\.model_name: not a valid regex/m);
    expect(joined).toMatch(/^p\.yaml:10:\d+: target\.server_metrics\[1\]\.headers\.Authorization: keys never go/m);
    expect(joined).toMatch(/^p\.yaml:11:\d+: target\.server_metrics\[1\]\.api_key_env: expected the NAME/m);
    expect(joined).toMatch(/^p\.yaml:12:\d+: .*intervall/m);
    expect(joined).toMatch(/^p\.yaml:14:\d+: target\.server_metrics\[2\]\.interval: at least 100ms/m);
    // The header's value (a key) is never repeated in the message.
    expect(joined).not.toContain('Bearer x');
  });

  it("--server-metrics URL adds an endpoint with the defaults, after the file's; a bad one is named by the flag", () => {
    const dir = mkdtempSync(join(tmpdir(), 'ib-sm-'));
    const path = join(dir, 'p.yaml');
    writeFileSync(path, `target:\n  server_metrics: [{ url: http://a/metrics, preset: vllm }]\n${SCENARIOS}`);
    const endpoints = loadProfile(path, { serverMetrics: ['http://b:9400/metrics', 'http://c/metrics'] }).target
      .serverMetrics;
    expect(endpoints?.map((e) => [e.url, e.preset, e.intervalMs])).toEqual([
      ['http://a/metrics', 'vllm', 1000],
      ['http://b:9400/metrics', 'auto', 1000],
      ['http://c/metrics', 'auto', 1000],
    ]);
    writeFileSync(path, SCENARIOS);
    expect(loadProfile(path, { serverMetrics: ['http://b/metrics'] }).target.serverMetrics?.[0]?.url).toBe(
      'http://b/metrics',
    );
    try {
      loadProfile(path, { serverMetrics: ['not-a-url'] });
      expect.unreachable();
    } catch (error) {
      expect(isInferbenchError(error) && error.code).toBe('BAD_PROFILE');
      expect((error as Error).message).toMatch(
        /--server-metrics not-a-url: target\.server_metrics\[0\]\.url: expected an http\(s\) URL/,
      );
    }
  });

  it('validate prints each endpoint with its settings and never a key', () => {
    const profile = resolveProfileText(
      `target:\n  base_url: http://vllm:8000\n  server_metrics: [{ url: http://vllm:8000/metrics, api_key_env: METRICS_KEY, labels: { model_name: m } }]\n${SCENARIOS}`,
      'p.yaml',
      [],
      '/tmp',
    );
    expect(formatProfilePlan(profile)).toContain(
      'server metrics:\n  http://vllm:8000/metrics: preset auto, every 1.0s, timeout 800ms, labels model_name=m, key from $METRICS_KEY\n',
    );
  });
});
