/**
 * Prefix caching confirmed, in whole runs over real sockets. Against the emulator (its usage cached_tokens
 * and its /metrics counters come from one prompt cache) a `prompt.prefixes` workload gets summary.json
 * `server.measured.prefix_cache` whose client sums are requests.csv's over the requests processed between
 * the two scrapes the counters were read at (as are the server's hits and queries), the intended share
 * their prefix tokens / prompt tokens, the server's ratio its hit-ratio concept, the two a request or two
 * apart, and no warning; a session's resent history agrees too, with no intended share. Against a vLLM-like server
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

interface Row {
  /** The first token, ms from when requests.csv was opened (its own origin, a little before the run's start). */
  readonly atMs: number;
  readonly prompt: number;
  readonly cached: number;
  readonly prefixed: boolean;
}

/** requests.csv's answers whose usage said cached_tokens, in the order of their first token. */
function usageRows(out: string): Row[] {
  return parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8'))
    .records.filter((row) => row['cached_tokens'] !== '' && row['tokens_estimated'] === '0')
    .map((row) => ({
      atMs: Number(row['start_ms']) + Number(row['ttft_ms']),
      prompt: Number(row['input_tokens']),
      cached: Number(row['cached_tokens']),
      prefixed: /(^|;)prefix=p\d+/.test(row['labels'] ?? ''),
    }))
    .sort((a, b) => a.atMs - b.atMs);
}

/** The stretch of consecutive rows whose sums are exactly these, or null. */
function stretchOf(rows: readonly Row[], requests: number, prompt: number, cached: number): Row[] | null {
  for (let i = 0; i + requests <= rows.length; i++) {
    const stretch = rows.slice(i, i + requests);
    const sum = (of: (row: Row) => number) => stretch.reduce((total, row) => total + of(row), 0);
    if (sum((r) => r.prompt) === prompt && sum((r) => r.cached) === cached) return stretch;
  }
  return null;
}

/** A run of `body` against a fresh emulator: its measured phase's hit-ratio concept and prefix-cache check. */
async function emulatorRun(name: string, body: string) {
  const target = await emulators.start();
  const out = join(folder.dir, name);
  const result = await runCliInProcess(['run', profile(name, '200ms', body), '--out', out, '--quiet'], { target });
  expect(result.code, result.stderr).toBe(0);
  const summary = readSummary(out);
  expect(summary.server_metrics?.[0]?.engine).toBe('vllm');
  const measured = summary.groups[0]?.server?.measured;
  const concept = measured?.concepts['prefix_cache_hit_ratio'];
  if (concept?.kind !== 'ratio') throw new Error(`expected the hit ratio, got ${JSON.stringify(concept)}`);
  const check = measured?.prefix_cache;
  if (check === undefined) throw new Error('expected a prefix_cache check');
  // The client's side is the usage of the requests the server processed between two scrapes: a stretch
  // of consecutive requests in the order of their first token (whole 10 ms slots of it), exactly.
  const rows = usageRows(out);
  const stretch = stretchOf(rows, check.client_requests, check.client_prompt_tokens, check.client_cached_tokens);
  expect(stretch, JSON.stringify(check)).not.toBeNull();
  expect(check.client_requests).toBeGreaterThan(rows.length / 2);
  // The emulator's counters are the same usage (one cache model): the requests they counted are these,
  // but for a request at either edge (counted as the server processed it, placed by its first token).
  const edge = (of: (row: Row) => number) => 2 * Math.max(...rows.map(of));
  expect(Math.abs((concept.queries as number) - check.client_prompt_tokens)).toBeLessThanOrEqual(edge((r) => r.prompt));
  expect(Math.abs((concept.hits as number) - check.client_cached_tokens)).toBeLessThanOrEqual(edge((r) => r.cached));
  expect(check.client_cached_ratio).toBe(check.client_cached_tokens / check.client_prompt_tokens);
  expect(check.server_hit_ratio).toBe(concept.value);
  expect(check.difference).toBe((concept.value as number) - (check.client_cached_ratio as number));
  expect(check.agree).toBe(true);
  expect(Math.abs(check.difference as number)).toBeLessThanOrEqual(0.05);
  expect(harnessWarnings(summary).filter((w) => w.startsWith('prefix cache'))).toEqual([]);
  expect(result.stderr).not.toContain('prefix cache');
  return { summary, check, stretch: stretch ?? [] };
}

describe('prefix caching confirmed', () => {
  it('against the emulator: client and server agree, each equal to what was answered and counted', async () => {
    const { summary, check, stretch } = await emulatorRun(
      'emulator',
      `    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 60
    warmup_requests: 8
    prompt: { input_tokens: 64, prefixes: { groups: 1, tokens: ${PREFIX_TOKENS} } }
    request: { max_completion_tokens: 16 }
    seed: 5`,
    );
    // Every request carried the prefix: the intended share is its tokens over the same prompt tokens.
    expect(check.intended_ratio).toBe((check.client_requests * PREFIX_TOKENS) / check.client_prompt_tokens);
    expect(stretch.every((row) => row.prefixed)).toBe(true);
    // The cache did hit (the warmup sent the prefix first).
    expect(check.client_cached_ratio).toBeGreaterThan(0.5);
    // The warmup has its check too (never warned about: it is there to fill the cache).
    expect(summary.groups[0]?.server?.warmup?.prefix_cache?.tolerance).toBe(0.1);
  });

  it('a session resends its history: client and server agree, no intended share', async () => {
    const { check } = await emulatorRun(
      'session',
      `    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 24
    prompt: { input_tokens: 256 }
    session: { turns: 4, user_tokens: 32 }
    request: { max_completion_tokens: 8 }
    seed: 5`,
    );
    expect(check).not.toHaveProperty('intended_ratio');
    // Turns 2 to 4 find the conversation so far cached.
    expect(check.client_cached_ratio).toBeGreaterThan(0.3);
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
    // Every answer says 32 of 37 prompt tokens cached, every request adds 8 of 37 to the counters: whichever
    // requests the window holds, the ratios are these.
    const n = check?.client_requests ?? 0;
    expect(n).toBeGreaterThanOrEqual(6);
    expect(n).toBeLessThanOrEqual(12);
    expect(check).toMatchObject({
      client_prompt_tokens: n * VLLM_PROMPT_TOKENS,
      client_cached_tokens: n * 32,
      client_cached_ratio: 32 / VLLM_PROMPT_TOKENS,
      server_hit_ratio: 8 / VLLM_PROMPT_TOKENS,
      intended_ratio: (8 * n) / (n * VLLM_PROMPT_TOKENS),
      agree: false,
    });
    const warning =
      'prefix cache, scenario s (measured): the client saw 0.865 of its prompt tokens cached (usage cached_tokens: ' +
      `${n * 32} of ${n * VLLM_PROMPT_TOKENS}, ${n} requests), the server 0.216 ` +
      '(vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total); ' +
      "they differ by 0.649, more than the tolerance of 0.10: the server's counters may count other clients or " +
      'replicas (labels:), or the usage does not come from the engine scraped';
    expect(harnessWarnings(summary)).toContain(warning);
  });
});
