/**
 * The harness's self-diagnosis (summary.json `harness`), end to end: `inferbench run` in-process against
 * the known-timing server on 127.0.0.1. A run whose process is kept busy on purpose (a timer in this
 * process that holds the event loop, as a slow sink or a GC storm would) must be flagged
 * `client_bottleneck`, with its event-loop delay at least what was caused; a light run with nothing
 * blocking must not be. The busy and idle runs share one process with the server, as a user's
 * in-process test would; the idle run is kept light (2 in flight against a server that takes ~30 ms per
 * answer) so it stays far below the limits on a loaded machine.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnownTimingServer, type KnownTimingServer } from '../../../src/bench/known-timing-server.js';
import { HARNESS_LIMITS } from '../../../src/runner/harness-monitor.js';
import { busyWaitMs } from '../../helpers/busy-wait.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-harness-health-');

let server: KnownTimingServer;
beforeAll(async () => {
  server = await startKnownTimingServer({ ttftMs: 20, itlMs: 3, tokens: 4, model: 'known-timing' });
});
afterAll(async () => {
  await server.close();
});

/** How long each burst of busy work holds the event loop, and how often one starts. */
const BLOCK_MS = 40;
const BLOCK_EVERY_MS = 100;

/** Runs a short closed loop of 2 in flight for `duration` through the CLI; returns its summary. */
async function run(name: string, duration: string) {
  const profile = folder.writeProfile(
    name,
    `name: ${name}
scenarios:
  - name: s
    models: [known-timing]
    load: { mode: concurrency, concurrency: 2 }
    duration: ${duration}
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 16 }
`,
  );
  const out = join(folder.dir, name);
  const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
    cwd: folder.dir,
  });
  return { result, summary: readSummary(out) };
}

describe('harness self-diagnosis', () => {
  it('flags a run whose client is kept busy as client_bottleneck, naming event-loop delay', async () => {
    const blocker = setInterval(() => busyWaitMs(BLOCK_MS), BLOCK_EVERY_MS);
    let outcome: Awaited<ReturnType<typeof run>>;
    try {
      outcome = await run('busy', '1500ms');
    } finally {
      clearInterval(blocker);
    }
    const { result, summary } = outcome;
    expect(result.code).toBe(0);
    expect(summary.groups[0]!.requests.ok).toBeGreaterThan(0);
    const { harness } = summary;
    expect(harness.client_bottleneck).toBe(true);
    expect(harness.warnings.some((warning) => warning.includes('event-loop delay'))).toBe(true);
    // The loop was held for BLOCK_MS at a time, about one sample in seven, so p99 is a burst. The monitor
    // takes its 10 ms sampling interval off every sample, and a burst may begin right after a sample:
    // the least it can report for one is BLOCK_MS - 10 (measured here: about BLOCK_MS).
    expect(harness.event_loop_delay_ms.p99).toBeGreaterThanOrEqual(BLOCK_MS - 10);
    expect(harness.event_loop_delay_ms.max).toBeGreaterThanOrEqual(BLOCK_MS - 10);
    // The user sees it too, not only summary.json, with the remedy and this machine's core count.
    expect(result.stderr).toContain('inferbench: warning: event-loop delay p99');
    const cores = availableParallelism();
    expect(result.stderr).toContain(
      `inferbench: warning: the client was the bottleneck: use --workers ${Math.max(2, cores > 2 ? cores - 1 : cores)} (this machine has ${cores} cores) or shards`,
    );
  });

  it('does not flag a light run with nothing blocking', async () => {
    const { result, summary } = await run('idle', '1s');
    expect(result.code).toBe(0);
    expect(summary.groups[0]!.requests.ok).toBeGreaterThan(0);
    const { harness } = summary;
    expect(harness.warnings).toEqual([]);
    expect(harness.client_bottleneck).toBe(false);
    expect(harness.event_loop_delay_ms.p99).toBeLessThanOrEqual(HARNESS_LIMITS.eventLoopDelayP99Ms);
    expect(result.stderr).not.toContain('inferbench: warning');
  });
});
