/**
 * inferbench under test in a process of its own (`fork()` this file; the accuracy section pins it to a
 * core): it receives one job over IPC (a profile's YAML and the base URL), runs it with the real runner,
 * and answers with every measured request's timestamps and body (to find it in the server's traces), the
 * offset from its performance.now() to the machine's monotonic clock, and the garbage-collection pauses
 * it saw (node:perf_hooks 'gc' entries: start and duration on the same clock as the records). Then exits.
 */
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { resolveProfileText } from '../profile/load-profile.js';
import { runProfile } from '../runner/run-profile.js';
import { systemClock } from '../util/clock.js';
import { inferbenchVersion } from '../cli/version.js';
import type { RequestRecord } from '../client/request-record.js';
import { ttftUs } from '../measure/request-timings.js';
import { bodyNotingDeps } from './accuracy-body-noting.js';
import { monotonicOffsetMs } from './known-timing-stats.js';
import type { ClientJob, ClientRoundResult, GcPause, MeasuredRequest } from './accuracy-client-job.js';

function gcPause(entry: PerformanceEntry): GcPause {
  const kind = (entry as { detail?: { kind?: number } }).detail?.kind ?? 0;
  return { startMs: entry.startTime, durationMs: entry.duration, kind };
}

/** Every GC pause as performance.now() ms; `kind` is the perf_hooks kind (1 minor, 2 major, 4 incremental, 8 weak). */
function observeGc(pauses: GcPause[]): PerformanceObserver {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(gcPause(entry));
  });
  observer.observe({ entryTypes: ['gc'] });
  return observer;
}

function measured(record: RequestRecord, body: unknown): MeasuredRequest {
  return {
    body: JSON.stringify(body),
    ok: record.errorClass === null,
    sentUs: record.sentUs,
    firstTokenUs: record.firstTokenUs,
    endUs: record.endUs,
    ttftUs: ttftUs(record),
  };
}

async function runJob(job: ClientJob): Promise<ClientRoundResult> {
  const pauses: GcPause[] = [];
  const observer = observeGc(pauses);
  const bodies = new Map<RequestRecord, unknown>();
  const requests: MeasuredRequest[] = [];
  const result = await runProfile({
    profile: resolveProfileText(job.profileText, 'client-accuracy.yaml'),
    target: { baseUrl: job.url, apiKey: null },
    control: { interrupt: new AbortController().signal },
    env: {
      clock: systemClock,
      cpuProbe: () => process.cpuUsage(),
      version: inferbenchVersion(),
      deps: bodyNotingDeps(bodies),
      events: {
        onRecord: (record) => {
          if (!record.warmup) requests.push(measured(record, bodies.get(record)));
          bodies.delete(record);
        },
      },
    },
  });
  // Entries reach the callback a little later, in batches: wait for the last, take what is still queued.
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const entry of observer.takeRecords()) pauses.push(gcPause(entry));
  observer.disconnect();
  return {
    offsetMs: monotonicOffsetMs(),
    requests,
    gcPauses: pauses,
    harness: result.harness,
  };
}

process.once('message', (job: ClientJob) => {
  runJob(job).then(
    (result) => process.send?.(result, () => process.disconnect()),
    (error: unknown) => {
      process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () =>
        process.disconnect(),
      );
    },
  );
});
