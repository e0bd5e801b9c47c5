/**
 * Runs against a server that streams as vLLM does (usage only when asked, `[DONE]`, a final chunk with
 * empty choices): the server's own token counts with no profile settings, request ids that reach the
 * server and requests.csv, fields the spec does not list, and retries whose failed attempts stay counted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import {
  startVllmLikeServer,
  VLLM_MODEL,
  VLLM_PROMPT_TOKENS,
  type VllmLikeServer,
} from '../../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-openai-compatible-');
const emulators = useInProcessEmulators();

const servers: VllmLikeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function vllm(options: Parameters<typeof startVllmLikeServer>[0] = {}): Promise<VllmLikeServer> {
  const server = await startVllmLikeServer(options);
  servers.push(server);
  return server;
}

/** requests.csv as objects (no cell here holds a comma). */
function csvRecords(runDir: string): Record<string, string>[] {
  const [header, ...rows] = readFileSync(join(runDir, 'requests.csv'), 'utf8').trim().split('\n');
  const columns = header!.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [columns[i]!, cell])));
}

function profile(name: string, extra = ''): string {
  return folder.writeProfile(
    name,
    `name: ${name}
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 2 }
    requests: 8
    prompt: { input_tokens: 16 }
${extra}`,
  );
}

describe('against a vLLM-like server', () => {
  it('asks for usage in streams and reports the server counts, not an estimate, with no settings', async () => {
    const server = await vllm();
    const out = join(folder.dir, 'usage');
    const result = await runCliInProcess(['run', profile('usage'), '--base-url', server.url, '--out', out], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(0);
    const group = readSummary(out).groups[0]!;
    expect(group.key).toBe(`s/${VLLM_MODEL}/-`);
    expect(group.requests.ok).toBe(8);
    expect(group.metrics.output_tokens!.min).toBe(12);
    expect(group.metrics.output_tokens!.max).toBe(12);
    expect(group.metrics.input_tokens!.p50).toBe(VLLM_PROMPT_TOKENS);
    expect(group.tokens.estimated_requests).toBe(0);
    for (const body of server.bodies) expect(body['stream_options']).toEqual({ include_usage: true });
  });

  it('with target.stream_usage false sends no stream_options and flags its counts as estimated', async () => {
    const server = await vllm();
    const out = join(folder.dir, 'no-usage');
    const path = folder.writeProfile(
      'no-usage',
      `name: no-usage
target: { base_url: "${server.url}", stream_usage: false }
scenarios:
  - name: s
    requests: 4
`,
    );
    const result = await runCliInProcess(['run', path, '--out', out], { cwd: folder.dir });
    expect(result.code).toBe(0);
    for (const body of server.bodies) expect(body).not.toHaveProperty('stream_options');
    const group = readSummary(out).groups[0]!;
    expect(group.tokens.estimated_requests).toBe(4);
    // o200k splits the made-up words into more pieces than the server's 12 tokens: why usage matters.
    expect(group.metrics.output_tokens!.p50).toBeGreaterThan(12);
  });

  it('sends a fresh x-request-id and traceparent per request and records them with the response id, the server id and fingerprint', async () => {
    const server = await vllm({ systemFingerprint: 'fp_test42', serverRequestIds: true });
    const out = join(folder.dir, 'ids');
    const result = await runCliInProcess(['run', profile('ids'), '--base-url', server.url, '--out', out], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(0);
    const chats = server.requests.filter((r) => r.method === 'POST');
    const sentIds = chats.map((r) => r.headers['x-request-id'] as string);
    expect(new Set(sentIds).size).toBe(8);
    for (const id of sentIds) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const rows = csvRecords(out);
    expect(rows.map((r) => r['request_id']).sort()).toEqual([...sentIds].sort());
    expect(rows.map((r) => r['response_id']).sort()).toEqual([...server.responseIds].sort());
    for (const row of rows) expect(row['system_fingerprint']).toBe('fp_test42');
    // W3C trace context: version 00, a fresh trace id per request, sampled; its trace id in requests.csv.
    const traceparents = chats.map((r) => r.headers['traceparent'] as string);
    for (const header of traceparents) expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceIds = traceparents.map((header) => header.split('-')[1]);
    expect(new Set(traceIds).size).toBe(8);
    expect(rows.map((r) => r['trace_id']).sort()).toEqual([...traceIds].sort());
    // The server's own id from its x-request-id header, beside the body's id.
    expect(rows.map((r) => r['server_request_id']).sort()).toEqual(server.responseIds.map((_, i) => `srv-${i}`).sort());
  });

  it('with target.trace_context false sends no traceparent and records no trace id', async () => {
    const server = await vllm();
    const path = folder.writeProfile(
      'no-trace',
      `name: no-trace\ntarget: { base_url: "${server.url}", trace_context: false }\nscenarios:\n  - { name: s, requests: 2 }\n`,
    );
    const out = join(folder.dir, 'no-trace');
    expect((await runCliInProcess(['run', path, '--out', out], { cwd: folder.dir })).code).toBe(0);
    for (const r of server.requests.filter((r) => r.method === 'POST'))
      expect(r.headers['traceparent']).toBeUndefined();
    for (const row of csvRecords(out)) {
      expect(row['trace_id']).toBe('');
      expect(row['server_request_id']).toBe('');
    }
  });

  it('names the request-id header as the target says, or sends none', async () => {
    const server = await vllm();
    const named = folder.writeProfile(
      'named-id',
      `name: named-id\ntarget: { base_url: "${server.url}", request_id_header: x-correlation-id }\nscenarios:\n  - { name: s, requests: 2 }\n`,
    );
    expect(
      (await runCliInProcess(['run', named, '--out', join(folder.dir, 'named-id')], { cwd: folder.dir })).code,
    ).toBe(0);
    const off = folder.writeProfile(
      'no-id',
      `name: no-id\ntarget: { base_url: "${server.url}", request_id_header: false }\nscenarios:\n  - { name: s, requests: 2 }\n`,
    );
    expect((await runCliInProcess(['run', off, '--out', join(folder.dir, 'no-id')], { cwd: folder.dir })).code).toBe(0);
    const chats = server.requests.filter((r) => r.method === 'POST');
    expect(
      chats
        .slice(0, 2)
        .every((r) => typeof r.headers['x-correlation-id'] === 'string' && r.headers['x-request-id'] === undefined),
    ).toBe(true);
    expect(
      chats
        .slice(2)
        .every((r) => r.headers['x-correlation-id'] === undefined && r.headers['x-request-id'] === undefined),
    ).toBe(true);
    expect(csvRecords(join(folder.dir, 'no-id')).every((r) => r['request_id'] === '')).toBe(true);
  });

  it('sends request_extra fields as given, after the spec fields', async () => {
    const server = await vllm();
    const out = join(folder.dir, 'extra');
    const path = profile(
      'extra',
      '    request: { temperature: 0 }\n    request_extra: { ignore_eos: true, min_tokens: 12, top_k: 5 }\n',
    );
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code).toBe(0);
    for (const body of server.bodies) {
      expect(body).toMatchObject({ temperature: 0, ignore_eos: true, min_tokens: 12, top_k: 5, stream: true });
    }
  });

  for (const status of [429, 500] as const) {
    it(`counts a ${status} that a retry recovered from: ok requests, every failed attempt visible`, async () => {
      const server = await vllm({ failFirstAttempt: status });
      const out = join(folder.dir, `retry-${status}`);
      const path = profile(`retry-${status}`, '    retry: { max_attempts: 2, backoff: 10ms }\n');
      const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
      expect(result.code).toBe(0);
      const errorClass = status === 429 ? 'http_429' : 'http_5xx';
      const group = readSummary(out).groups[0]!;
      expect(group.requests.ok).toBe(8);
      expect(group.requests.failed).toBe(0);
      expect(group.requests.errors).toEqual({});
      expect(group.requests.attempts).toBe(16);
      expect(group.requests.retried).toEqual({ [errorClass]: 8 });
      for (const row of csvRecords(out)) {
        expect(row['attempts']).toBe('2');
        expect(row['retried_errors']).toBe(errorClass);
      }
      // The same request id on both attempts: the failed one is found in the server's logs under it too.
      const ids = server.requests.filter((r) => r.method === 'POST').map((r) => r.headers['x-request-id']);
      expect(new Set(ids).size).toBe(8);
      expect(ids).toHaveLength(16);
      // The terminal table shows the throttling a retry hid (429 column) and the retried attempts.
      const table = result.stdout.split('\n');
      const header = table.findIndex((line) => line.startsWith('group'));
      const cells = table[header + 1]!.trim().split(/\s+/);
      const titles = table[header]!.replace('ttft p50', 'ttft_p50').trim().split(/\s+/);
      expect(cells[titles.indexOf('429')]).toBe(status === 429 ? '8' : '0');
      expect(cells[titles.indexOf('retried')]).toBe('8');
    });
  }
});

describe('request fields in profiles', () => {
  it('rejects a misspelt spec field in request, with a suggestion, and a spec field in request_extra', async () => {
    const path = profile('typo', '    request: { temprature: 0 }\n    request_extra: { top_p: 0.5 }\n');
    const result = await runCliInProcess(['validate', path], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /typo\.yaml:\d+:\d+: scenarios\[0\]\.request\.temprature: unknown key \(did you mean "temperature"\?\)/,
    );
    expect(result.stderr).toMatch(
      /scenarios\[0\]\.request_extra\.top_p: top_p is a field of the API spec: set it in request/,
    );
  });

  it('validate shows request_extra apart from the spec fields, and stream_options by default', async () => {
    const path = profile('shown', '    request_extra: { ignore_eos: true }\n');
    const result = await runCliInProcess(['validate', path], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('request    {"stream":true,"stream_options":{"include_usage":true}}');
    expect(result.stdout).toContain('extra      {"ignore_eos":true} (not in the API spec: sent as given)');
  });

  it('the emulator answers a field the spec does not list with its 400, as the service would', async () => {
    const out = join(folder.dir, 'emulator-extra');
    const path = folder.writeProfile(
      'emulator-extra',
      'name: emulator-extra\nscenarios:\n  - name: s\n    requests: 2\n    request_extra: { top_k: 5 }\n',
    );
    const result = await runCliInProcess(['run', path, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code).toBe(3);
    const group = readSummary(out).groups[0]!;
    expect(group.requests.errors).toEqual({ http_4xx: 2 });
    expect(group.requests.error_samples['http_4xx']![0]).toMatch(/top_k/);
  });
});
