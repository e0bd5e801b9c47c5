/**
 * `capacity --workers N|auto` (a search pushes loads one thread cannot send on time): every step's load
 * is sent by N worker threads, their records watched by the one step monitor of the coordinator, so the
 * steps are decided as in one thread; summary.json says how many threads sent it. And the remedy the
 * harness names when its client was the bottleneck: more workers with this machine's core count, or
 * shards once the workers are as many as the cores.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bottleneckRemedy } from '../../src/cli/worker-count.js';
import type { CapacitySummary } from '../../src/metrics/capacity-summary.js';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-workers-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 4, serviceMs: 100 });
});
afterAll(async () => {
  await server.close();
});

describe('inferbench capacity --workers', () => {
  it('searches with every step sent by 2 worker threads, and says so', async () => {
    // 40 req/s at most; a p90 under 400 ms (TTFT 50 ms while nothing waits) passes 20 req/s at once.
    const path = folder.writeProfile(
      'workers',
      `name: workers
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 10s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity: { slo: { ttft_ms.p90: 400ms }, start: 20, max_steps: 2, max_step_duration: 6s, step_warmup: 0s }
`,
    );
    const dir = join(folder.dir, 'workers');
    const sent = server.requests.length;
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir, '--workers', '2'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('in 2 worker threads');
    const summary = readSummary(dir);
    expect(summary.workers).toBe(2);
    const group = (summary.capacity as CapacitySummary).groups[0]!;
    // The step monitor read the threads' records and decided on them (PASS, at 20 req/s, unless a busy
    // machine delayed the answers; a step whose harness was busy is INCONCLUSIVE and says what its tests
    // had decided). Without the workers' records reaching it, a step ends "UNDECIDED: 0 of 0".
    const first = group.steps[0]!;
    expect(first.load).toBe(20);
    expect(first.reason).toMatch(/(?:^|was: )(?:PASS|FAIL): \d+ of \d+ exceeded ttft_ms\.p90/);
    expect(first.tests[0]!.requests).toBeGreaterThanOrEqual(10);
    const answered = group.steps.reduce((sum, step) => sum + step.requests, 0);
    expect(server.requests.length - sent).toBeGreaterThanOrEqual(answered);
  }, 240_000);

  it('takes auto and refuses a bad count before anything is sent', async () => {
    const path = folder.writeProfile(
      'bad',
      `name: bad\nscenarios:\n  - name: s\n    load: { mode: rate, rate: 1 }\n    duration: 1s\ncapacity: { slo: { ttft_ms.p90: 400ms } }\n`,
    );
    const sent = server.requests.length;
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--workers', 'many'], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workers "many" is not a number from 1 to 256 or auto');
    expect(server.requests.length).toBe(sent);
  });
});

describe('the remedy named when the client was the bottleneck', () => {
  it("names --workers with this machine's core count, or shards when the workers already fill it", () => {
    expect(bottleneckRemedy(1, 8)).toBe(
      'the client was the bottleneck: use --workers 7 (this machine has 8 cores) or shards (--shard i/N, one per machine)',
    );
    expect(bottleneckRemedy(1, 2)).toBe(
      'the client was the bottleneck: use --workers 2 (this machine has 2 cores) or shards (--shard i/N, one per machine)',
    );
    expect(bottleneckRemedy(7, 8)).toBe(
      'the client was the bottleneck with 7 workers (this machine has 8 cores): use shards (--shard i/N, one per machine)',
    );
    expect(bottleneckRemedy(1, 1)).toBe(
      'the client was the bottleneck with 1 worker (this machine has 1 core): use shards (--shard i/N, one per machine)',
    );
  });
});
