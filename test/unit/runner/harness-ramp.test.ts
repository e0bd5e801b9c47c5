/**
 * RunControl.harnessRampMs (a capacity step's first block): requests launched within it of the scenario's
 * start are left out of the schedule lag the harness monitor judges, the rest are all in it. In virtual
 * time, against the scripted client, on an open loop of known arrivals: exact counts.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { runProfile } from '../../../src/runner/run-profile.js';
import { ManualClock } from '../../../src/util/clock.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { scriptedTarget } from '../../helpers/scripted-client.js';
import { runInVirtualTime } from '../../helpers/virtual-time.js';

const TOKENIZER = await loadHfTokenizer(
  new URL('../../fixtures/tokenizers/tiny-wordlevel.json', import.meta.url).pathname,
);

/** The launch times (ms from the scenario's start) of the requests whose lag reached the harness monitor. */
async function judgedLaunches(harnessRampMs: number | undefined): Promise<number[]> {
  const clock = new ManualClock(1_000_000);
  const target = scriptedTarget();
  const judged: number[] = [];
  let startMs = Number.NaN;
  const profile = resolveProfileText(
    `name: ramp
scenarios:
  - { name: s, models: [m], load: { mode: rate, rate: 10, arrival: constant }, duration: 3s }
`,
    'ramp.yaml',
  );
  const work = runProfile({
    profile,
    target: { baseUrl: 'http://scripted.invalid', apiKey: null },
    control: { interrupt: new AbortController().signal, ...(harnessRampMs === undefined ? {} : { harnessRampMs }) },
    env: {
      clock,
      cpuProbe: null,
      version: 'test',
      tokenizer: TOKENIZER,
      deps: {
        ...target.deps,
        startHarnessMonitor: (probe) => {
          const inner = target.deps.startHarnessMonitor(probe);
          return {
            // Each request's lag reaches the monitor as its record is finished: its launch is the send's
            // time on the manual clock, less the lag.
            recordScheduleLagUs: (lagUs) => {
              judged.push(Math.round(clock.nowMs() - startMs));
              inner.recordScheduleLagUs(lagUs);
            },
            finish: () => inner.finish(),
          };
        },
      },
      events: {
        onScenarioStart: () => {
          startMs = clock.nowMs();
        },
      },
    },
  });
  await runInVirtualTime(clock, work);
  return judged;
}

describe('the harness ramp of a capacity step', () => {
  it('leaves the requests launched in its first second out of the schedule lag, and counts every later one', async () => {
    const all = await judgedLaunches(undefined);
    // 10 arrivals a second for 3 s: every one judged.
    expect(all).toHaveLength(30);
    const ramped = await judgedLaunches(1000);
    // The 10 launched in the first second are not; the 20 after it are, all of them.
    expect(ramped).toHaveLength(20);
    expect(Math.min(...ramped)).toBeGreaterThanOrEqual(1000);
  });
});
