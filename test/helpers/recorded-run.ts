/**
 * A profile run in the test's own process (runProfile, no CLI) that keeps a copy of every record and its
 * values as it ends, for tests that compare what the client stamped with what a purpose-built server
 * recorded of the same request (found by its `x-request-id`), on one clock.
 */
import type { RequestRecord } from '../../src/client/request-record.js';
import type { RecordedValues } from '../../src/metrics/request-values.js';
import type { ResolvedProfile } from '../../src/profile/resolved-profile.js';
import { runProfile } from '../../src/runner/run-profile.js';
import { systemClock } from '../../src/util/clock.js';

/** A request as the run ended it: copies, since the runner reuses the objects it hands out. */
export interface SeenRequest {
  readonly record: RequestRecord;
  readonly values: RecordedValues;
}

/** Runs `profile` against `baseUrl` (its key, or none) on the system clock; resolves with every request seen. */
export async function runRecording(
  profile: ResolvedProfile,
  baseUrl: string,
  apiKey: string | null = null,
): Promise<SeenRequest[]> {
  const seen: SeenRequest[] = [];
  await runProfile({
    profile,
    target: { baseUrl, apiKey },
    control: { interrupt: new AbortController().signal },
    env: {
      clock: systemClock,
      cpuProbe: null,
      version: 'test',
      events: { onRecord: (record, _group, values) => seen.push({ record: { ...record }, values: { ...values } }) },
    },
  });
  return seen;
}

/** What a test server recorded of `record`'s request, by the `x-request-id` the client sent; throws when none. */
export function servedFor<T>(served: ReadonlyMap<string, T>, record: RequestRecord): T {
  const entry = served.get(record.requestId ?? '');
  if (entry === undefined) throw new Error(`the server saw no request ${record.requestId}`);
  return entry;
}

/** The median (upper middle of an even count): the statistic the one-clock TTFT checks bound. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
