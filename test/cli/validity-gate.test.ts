/**
 * The validity gate (exit 5), end to end on real sockets: a run that dropped arrivals at its own
 * max_concurrency is not valid evidence; `run --fail-on invalid` or the profile's `fail_on_invalid` makes
 * it exit 5 naming why, without either it exits 0 as before. `compare` does not call a regression from a
 * candidate that is not valid evidence (exit 5, "NOT CALLED"), and calls it from a valid one (exit 99).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidEvidence } from '../../src/aggregate/run-validity.js';
import { makeRunDir } from '../fixtures/make-run.js';
import {
  ARRIVAL_MODEL,
  type ArrivalRecordingServer,
  startArrivalRecordingServer,
} from '../helpers/arrival-recording-server.js';
import { type CliRunResult, runCliInProcess } from '../helpers/cli.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-validity-');

let server: ArrivalRecordingServer;
beforeAll(async () => {
  // Each answer takes 300 ms: one request in flight at a time takes ~3 of 20 arrivals a second.
  server = await startArrivalRecordingServer(300);
});
afterAll(async () => {
  await server.close();
});

function profile(name: string, extra = ''): string {
  return folder.writeProfile(
    name,
    `name: ${name}
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    models: [${ARRIVAL_MODEL}]
    load: { mode: rate, rate: 20, arrival: constant, max_concurrency: 1 }
    duration: 1s
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 16 }
${extra}`,
  );
}

describe('run and the validity gate', () => {
  it('exits 0 on a run that dropped arrivals unless asked; 5 with --fail-on invalid or fail_on_invalid, saying why', async () => {
    const plain = join(folder.dir, 'plain');
    const asIs = await runCliInProcess(['run', profile('drops'), '--base-url', server.url, '--out', plain], {
      cwd: folder.dir,
    });
    const dropped = readSummary(plain).groups[0]?.requests.dropped ?? 0;
    expect(dropped).toBeGreaterThan(5);
    expect(asIs.code, asIs.stderr).toBe(0);

    const flagged = await runCliInProcess(
      ['run', profile('drops'), '--base-url', server.url, '--out', join(folder.dir, 'flag'), '--fail-on', 'invalid'],
      { cwd: folder.dir },
    );
    expect(flagged.code, flagged.stderr).toBe(5);
    expect(flagged.stderr).toContain('inferbench: the run is not valid evidence (--fail-on invalid):');
    expect(flagged.stderr).toMatch(/ {2}- s\/arrival-model\/-: \d+ arrivals were dropped at max_concurrency/);

    const byProfile = await runCliInProcess(
      [
        'run',
        profile('drops-profile', 'fail_on_invalid: true\n'),
        '--base-url',
        server.url,
        '--out',
        join(folder.dir, 'p'),
      ],
      { cwd: folder.dir },
    );
    expect(byProfile.code, byProfile.stderr).toBe(5);
    expect(byProfile.stderr).toContain('the run is not valid evidence (the profile sets fail_on_invalid)');
  }, 60_000);

  it('exits 0 with --fail-on invalid when nothing was dropped and the harness was healthy (5 only with a reason)', async () => {
    const out = join(folder.dir, 'steady');
    const path = folder.writeProfile(
      'steady',
      `name: steady
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    models: [${ARRIVAL_MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: 3
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 16 }
`,
    );
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--out', out, '--fail-on', 'invalid'],
      {
        cwd: folder.dir,
      },
    );
    const reasons = invalidEvidence(readSummary(out));
    // No drops here; a loaded machine may still make the client its own bottleneck, and then it must say so.
    expect(reasons.filter((r) => r.includes('dropped'))).toEqual([]);
    expect(result.code, result.stderr).toBe(reasons.length > 0 ? 5 : 0);
    if (reasons.length > 0) expect(result.stderr).toContain('the client was its own bottleneck');
  }, 30_000);

  it('refuses a value other than invalid (exit 2)', async () => {
    const result = await runCliInProcess(['run', profile('drops'), '--fail-on', 'regression']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/fail-on/);
  });
});

describe('compare and a candidate that is not valid evidence', () => {
  // One pair of fixture runs (seeded: every test made the same two) and `compare` of the pair as made, shared;
  // each test makes its own copy of the candidate client-bound.
  let base = '';
  let slowAsMade = '';
  let asMade: CliRunResult;
  beforeAll(async () => {
    base = makeRunDir(join(folder.dir, 'base'), { seed: 1, runId: 'base-run' }).dir;
    slowAsMade = makeRunDir(join(folder.dir, 'slow'), { seed: 2, slowdown: 1.6, runId: 'slow-run' }).dir;
    asMade = await runCliInProcess(['compare', base, slowAsMade, '--json']);
  });

  /** A copy of the slower run, for a test to make client-bound. */
  function slowCopy(name: string): string {
    const dir = join(folder.dir, name);
    cpSync(slowAsMade, dir, { recursive: true });
    return dir;
  }

  /** The candidate's summary.json made client-bound: its event-loop delay and schedule lag p99s as given. */
  function clientBound(dir: string, delayMs: number, lagMs: number): void {
    const summaryPath = join(dir, 'summary.json');
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
    summary.harness = {
      ...summary.harness,
      event_loop_delay_ms: { ...summary.harness.event_loop_delay_ms, p99: delayMs },
      schedule_lag_ms: { ...summary.harness.schedule_lag_ms, p99: lagMs },
      client_bottleneck: true,
      warnings: [
        `event-loop delay p99 was ${delayMs} ms (> 10 ms): the client was busy and latencies may include its own delay`,
      ],
    };
    writeFileSync(summaryPath, JSON.stringify(summary));
  }

  it("calls a valid candidate's regressions (99); not those its own client may explain (5, NOT CALLED)", async () => {
    const called = asMade;
    expect(called.code, called.stderr).toBe(99);
    const regressed = JSON.parse(called.stdout).comparisons.filter(
      (c: { verdict: string }) => c.verdict === 'regression',
    );
    expect(regressed.length).toBeGreaterThan(0);
    const largest = Math.max(
      ...regressed
        .filter((c: { unit: string }) => c.unit === 'ms')
        .map((c: { absoluteChange: number }) => c.absoluteChange),
    );

    // A client that may have added more than the largest latency change: nothing is called.
    const slow = slowCopy('slow1');
    clientBound(slow, Math.ceil(largest), 5);
    const refused = await runCliInProcess(['compare', base, slow, '--quiet']);
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.stdout).toMatch(
      new RegExp(
        `^NOT CALLED: ${regressed.length} regression\\(s\\) at alpha 0\\.05 \\(.+\\) the candidate's own client may explain: it is not valid evidence: the client was its own bottleneck: event-loop delay p99 was ${Math.ceil(largest)} ms`,
      ),
    );
  }, 30_000);

  it("calls a time per token that grew by more than the client's delay spread over the tokens", async () => {
    type Row = { group: string; metricId: string; verdict: string; absoluteChange: number };
    const valid: Row[] = JSON.parse(asMade.stdout).comparisons;
    const slow = slowCopy('slow2');
    const tpot = valid.find((c) => c.metricId === 'tpot_ms.p50' && c.verdict === 'regression') as Row;
    expect(tpot).toBeDefined();
    // A client delay of 2x the TPOT change: it may explain the change of a latency from the start, but
    // over ~20-100 tokens it adds at most 2 x delay / (tokens - 1) to a time per token.
    clientBound(slow, Math.ceil(2 * tpot.absoluteChange), 0);
    const bound: Row[] = JSON.parse((await runCliInProcess(['compare', base, slow, '--json'])).stdout).comparisons;
    expect(bound.find((c) => c.group === tpot.group && c.metricId === 'tpot_ms.p50')?.verdict).toBe('regression');
  }, 30_000);

  it('still calls a latency regression larger than the delay the client may have added (99)', async () => {
    const slow = slowCopy('slow3');
    // 1 + 1 ms of client delay cannot explain changes of tens of ms: they are the target's.
    clientBound(slow, 1, 1);
    const result = await runCliInProcess(['compare', base, slow, '--json']);
    expect(result.code, result.stderr).toBe(99);
    const comparisons: { verdict: string; unit: string; absoluteChange: number; reason: string }[] = JSON.parse(
      result.stdout,
    ).comparisons;
    const latency = comparisons.filter((c) => c.verdict === 'regression');
    expect(latency.length).toBeGreaterThan(0);
    expect(latency.every((c) => c.unit === 'ms' && c.absoluteChange > 2)).toBe(true);
    // A rate that regressed is not a latency: a slow client lowers rates too, so it is not called.
    for (const c of comparisons.filter((x) => x.verdict === 'not_called'))
      expect(c.reason).toContain("not called: the candidate's client was its own bottleneck");
  }, 30_000);
});
