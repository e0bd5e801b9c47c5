/**
 * Prefix caching confirmed, in whole runs over real sockets. Against the emulator (its usage cached_tokens
 * and its /metrics counters come from one prompt cache) a `prompt.prefixes` workload gets summary.json
 * `server.measured.prefix_cache` with the client's ratio equal to requests.csv's cached / prompt tokens of
 * the measured requests, the intended share equal to their prefix tokens / prompt tokens, the server's ratio
 * equal to its hit-ratio concept, the two within the tolerance, and no warning. Against a vLLM-like server
 * whose counters say another hit rate than its usage, the run warns with both ratios.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/metrics/run-summary.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { startVllmLikeServer, VLLM_PROMPT_TOKENS, type VllmLikeServer } from '../../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-prefix-cache-');
const emulators = useInProcessEmulators();
const servers: VllmLikeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const PREFIX_TOKENS = 512;

/** `interval`: a scrape may wait for the in-process server's event loop: each has the whole interval. */
function profile(name: string, interval: string, body: string): string {
  return folder.writeProfile(
    name,
    `name: ${name}
target: { server_metrics: [{ url: /metrics, interval: ${interval}, timeout: ${interval} }] }
scenarios:
  - name: s
${body}`,
  );
}

const harnessWarnings = (summary: RunSummary): string[] => summary.harness.warnings;

describe('prefix caching confirmed', () => {
  it('against the emulator: client and server agree, each ratio equal to what was answered and counted', async () => {
    const target = await emulators.start();
    const out = join(folder.dir, 'emulator');
    // One prefix: its first request (the only one the cache cannot serve) is in the warmup, and the
    // window's edges move the server's ratio by a point or two, whichever warmup requests its counters take in.
    const path = profile(
      'emulator',
      '200ms',
      `    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 60
    warmup_requests: 8
    prompt: { input_tokens: 64, prefixes: { groups: 1, tokens: ${PREFIX_TOKENS} } }
    request: { max_completion_tokens: 16 }
    seed: 5`,
    );
    const result = await runCliInProcess(['run', path, '--out', out, '--quiet'], { target });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    expect(summary.server_metrics?.[0]?.engine).toBe('vllm');

    // The client's side, from requests.csv: the measured requests whose usage said cached_tokens.
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records.filter(
      (row) => row['warmup'] === '0' && row['cached_tokens'] !== '' && row['tokens_estimated'] === '0',
    );
    expect(rows.length).toBe(60);
    const sum = (of: (row: Record<string, string>) => number) => rows.reduce((total, row) => total + of(row), 0);
    const prompt = sum((row) => Number(row['input_tokens']));
    const cached = sum((row) => Number(row['cached_tokens']));
    const prefixed = rows.filter((row) => /(^|;)prefix=p\d+/.test(row['labels'] ?? '')).length;
    expect(prefixed).toBe(60);

    const measured = summary.groups[0]?.server?.measured;
    const check = measured?.prefix_cache;
    const concept = measured?.concepts['prefix_cache_hit_ratio'];
    if (concept?.kind !== 'ratio') throw new Error(`expected the hit ratio, got ${JSON.stringify(concept)}`);
    expect(concept.queries).toBeGreaterThan(0);
    expect(check).toEqual({
      client_requests: 60,
      client_prompt_tokens: prompt,
      client_cached_tokens: cached,
      client_cached_ratio: cached / prompt,
      server_hit_ratio: concept.value,
      intended_ratio: (prefixed * PREFIX_TOKENS) / prompt,
      tolerance: 0.1,
      difference: (concept.value as number) - cached / prompt,
      agree: true,
    });
    // The cache did hit (the warmup sent each prefix first), and the two agree closely.
    expect(check?.client_cached_ratio).toBeGreaterThan(0.5);
    expect(Math.abs(check?.difference as number)).toBeLessThanOrEqual(0.1);
    expect(harnessWarnings(summary).filter((w) => w.startsWith('prefix cache'))).toEqual([]);
    expect(result.stderr).not.toContain('prefix cache');
    // The warmup has its check too (never warned about: it is there to fill the cache).
    expect(summary.groups[0]?.server?.warmup?.prefix_cache?.client_requests).toBe(8);
  });

  it('against a server whose counters disagree with its usage: the run warns with both ratios', async () => {
    const server = await startVllmLikeServer({ tokens: 4, prefixCache: { cachedTokens: 32, serverHitTokens: 8 } });
    servers.push(server);
    const out = join(folder.dir, 'disagree');
    const path = profile(
      'disagree',
      '100ms',
      `    load: { mode: rate, rate: 20 }
    requests: 12
    prompt: { input_tokens: 16, prefixes: { groups: 2, tokens: 8 } }`,
    );
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out, '--quiet'], {
      env: { PATH: process.env.PATH, INFERENCE_API_KEY: 'any' },
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    const check = summary.groups[0]?.server?.measured?.prefix_cache;
    expect(check).toMatchObject({
      client_requests: 12,
      client_prompt_tokens: 12 * VLLM_PROMPT_TOKENS,
      client_cached_tokens: 12 * 32,
      client_cached_ratio: 32 / VLLM_PROMPT_TOKENS,
      server_hit_ratio: 8 / VLLM_PROMPT_TOKENS,
      intended_ratio: (8 * 12) / (12 * VLLM_PROMPT_TOKENS),
      agree: false,
    });
    const warning =
      'prefix cache, scenario s (measured): the client saw 0.865 of its prompt tokens cached (usage cached_tokens: ' +
      '384 of 444, 12 requests), the server 0.216 (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total); ' +
      "they differ by 0.649, more than the tolerance of 0.10: the server's counters may count other clients or " +
      'replicas (labels:), or the usage does not come from the engine scraped';
    expect(harnessWarnings(summary)).toContain(warning);
  });
});
