/**
 * What one worker thread of `run --workers N` does: runs its share of the profile (runProfile with the
 * share as a shard, so rates, concurrency, request counts and arrival seeds are split exactly as shards
 * split them), tells the coordinator when it is ready, starts on `go`, forwards its numbers through a
 * WorkerOutbox and ends with `done` (its own harness health) or `failed`. The thread's entry point is in
 * cli/ (it aligns the thread's clock first); this file never touches `process`.
 */
import type { MessagePort } from 'node:worker_threads';
import { isInferbenchError } from '../errors.js';
import { systemClock } from '../util/clock.js';
import type { CpuProbe } from './harness-monitor.js';
import { runProfile } from './run-profile.js';
import { defaultRunnerDeps } from './runner-deps.js';
import { WorkerOutbox } from './worker-outbox.js';
import type { CoordinatorMessage, WorkerInit, WorkerMessage } from './worker-protocol.js';

/** Runs the share; resolves once `done` or `failed` is posted. */
export async function runWorkerShare(init: WorkerInit, port: MessagePort, cpuProbe: CpuProbe | null): Promise<void> {
  const post = (message: WorkerMessage): void => port.postMessage(message);
  const interrupt = new AbortController();
  let go: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    go = resolve;
  });
  port.on('message', (message: CoordinatorMessage) => {
    if (message.type === 'interrupt') interrupt.abort();
    // An interrupt before `go` must not leave the worker waiting for it.
    go();
  });
  const outbox = new WorkerOutbox(post);
  try {
    const result = await runProfile({
      profile: init.profile,
      target: { baseUrl: init.baseUrl, apiKey: init.apiKey, proxy: init.proxy },
      control: {
        interrupt: interrupt.signal,
        tickIntervalMs: init.tickIntervalMs,
        harnessRampMs: init.harnessRampMs,
        shard: init.share,
        startGate: ({ profile, tokenizer }) => {
          post({ type: 'ready', profile, workloadHash: defaultRunnerDeps.workloadHash(profile), tokenizer });
          return started;
        },
      },
      env: {
        clock: systemClock,
        cpuProbe,
        version: init.version,
        deps: { ...defaultRunnerDeps, createCollector: () => outbox.collector },
        events: {
          onRecord: (record, _group, values) => outbox.record(record, values),
          onTick: (tick) => post({ type: 'status', scenario: tick.scenario, warmup: tick.warmup }),
          onShardIdle: (scenario, reason) => post({ type: 'idle', scenario: scenario.name, reason }),
        },
      },
    });
    outbox.flush();
    post({ type: 'done', complete: result.complete, interrupted: result.interrupted, harness: result.harness });
  } catch (error) {
    outbox.flush();
    post({
      type: 'failed',
      code: isInferbenchError(error) ? error.code : 'INTERNAL',
      message: error instanceof Error ? error.message : String(error),
      hint: isInferbenchError(error) ? (error.hint ?? null) : null,
    });
  }
}
