/**
 * stop_when_decided through the whole runner in virtual time (ManualClock, scripted client): a clearly
 * passing run stops on the first tick after its tests have seen the 292 clean requests a p99 PASS needs,
 * complete, with each verdict recorded; a clearly failing one stops as soon as its slow answers end; a
 * borderline one (exactly 1% of answers over the limit of a p99), one with a threshold no test can decide
 * and a ramp run to their end; warmup requests are read by no test.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { type RunResult, runProfile } from '../../../src/runner/run-profile.js';
import { ManualClock } from '../../../src/util/clock.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { type Script, type ScriptedTarget, scriptedTarget } from '../../helpers/scripted-client.js';
import { runInVirtualTime } from '../../helpers/virtual-time.js';

const START_MS = 1_000_000;
const TOKENIZER = await loadHfTokenizer(
  new URL('../../fixtures/tokenizers/tiny-wordlevel.json', import.meta.url).pathname,
);

async function run(
  profileText: string,
  script: Script,
): Promise<{ result: RunResult; target: ScriptedTarget; endMs: number }> {
  const clock = new ManualClock(START_MS);
  const target = scriptedTarget(script);
  const profile = resolveProfileText(profileText, 'virtual.yaml');
  const work = runProfile({
    profile,
    target: { baseUrl: 'http://scripted.invalid', apiKey: null },
    control: { interrupt: new AbortController().signal, shard: null },
    env: { clock, cpuProbe: null, version: 'test', deps: target.deps, tokenizer: TOKENIZER },
  });
  const result = await runInVirtualTime(clock, work);
  return { result, target, endMs: clock.nowMs() - START_MS };
}

function profile(thresholds: string, { duration = '60s', warmup = '' } = {}): string {
  return `name: decided
stop_when_decided: true
thresholds: ${thresholds}
scenarios:
  - name: s
    models: [m]
    load: { mode: rate, rate: 200, arrival: constant }
    duration: ${duration}
${warmup}    prompt: { input_tokens: 8 }
`;
}

const fast: Script = () => ({ ttftMs: 50, outputTokens: 2 });

describe('stop_when_decided in virtual time', () => {
  it('a clear pass stops at the 2 s tick (292 clean requests needed, about 180 a second), complete', async () => {
    const { result, target, endMs } = await run(profile('["ttft_ms.p99 < 800", "error_rate < 0.01"]'), fast);
    const stopped = result.stopped;
    expect(stopped?.reason).toBe('decided');
    if (stopped?.reason !== 'decided') return;
    expect(stopped.at_s).toBeCloseTo(2, 1);
    expect(stopped.thresholds.map((t) => [t.threshold, t.group, t.verdict, t.at_s])).toEqual([
      ['ttft_ms.p99 < 800', 's/m/-', 'pass', 2],
      ['error_rate < 0.01', 's/m/-', 'pass', 2],
    ]);
    // Both tests needed the second tick: at 1 s fewer than 292 requests had ended.
    for (const t of stopped.thresholds) {
      expect(t.requests).toBeGreaterThanOrEqual(292);
      expect(t.exceeded).toBe(0);
    }
    expect(result.complete).toBe(true);
    // Stopped like Ctrl-C at 2 s: nothing sent after, the requests in flight finished.
    expect(target.sends.length).toBeLessThanOrEqual(401);
    expect(endMs).toBeLessThan(3_000);
  });

  it('a clear fail (one answer in ten over the limit) stops at the 2 s tick', async () => {
    const { result, target } = await run(profile('["ttft_ms.p99 < 800"]'), (n) => ({
      ttftMs: n % 10 === 0 ? 900 : 50,
      outputTokens: 2,
    }));
    const stopped = result.stopped;
    expect(stopped?.reason === 'decided' && stopped.thresholds[0]?.verdict).toBe('fail');
    // The slow answers end 900 ms after their send: by 1 s only two had, too few against 180 fast ones.
    expect(stopped?.at_s).toBeCloseTo(2, 1);
    expect(stopped?.reason === 'decided' && stopped.thresholds[0]?.exceeded).toBeGreaterThanOrEqual(3);
    expect(target.sends.length).toBeLessThanOrEqual(401);
  });

  it('a borderline p99 (every 100th answer over the limit) is not decided in 3 s: the run goes to its end', async () => {
    const { result, target } = await run(profile('["ttft_ms.p99 < 800"]', { duration: '3s' }), (n) => ({
      ttftMs: n % 100 === 50 ? 900 : 50,
      outputTokens: 2,
    }));
    expect(result.stopped).toBeNull();
    expect(result.complete).toBe(true);
    expect(target.sends).toHaveLength(600);
  });

  it('a threshold no test can decide (a mean) keeps a clearly passing run going to its end', async () => {
    const { result, target } = await run(
      profile('["ttft_ms.p99 < 800", "ttft_ms.mean < 800"]', { duration: '4s' }),
      fast,
    );
    expect(result.stopped).toBeNull();
    expect(target.sends).toHaveLength(800);
  });

  it('a ramp (load.stages) is not judged before its peak: a clearly passing ramp runs to its end', async () => {
    const text = profile('["ttft_ms.p99 < 800"]').replace(
      '    load: { mode: rate, rate: 200, arrival: constant }\n    duration: 60s\n',
      '    load: { mode: rate, arrival: constant, stages: [{ duration: 3s, rate: 200 }, { duration: 1s, rate: 400 }] }\n',
    );
    const { result, endMs } = await run(text, fast);
    expect(result.stopped).toBeNull();
    expect(endMs).toBeGreaterThanOrEqual(4_000);
  });

  it('warmup requests are read by no test: a bad warmup does not fail, the measured part passes', async () => {
    const { result } = await run(profile('["ttft_ms.p99 < 800"]', { warmup: '    warmup: 1s\n' }), (n) => ({
      ttftMs: n < 200 ? 900 : 50,
      outputTokens: 2,
    }));
    const stopped = result.stopped;
    expect(stopped?.reason === 'decided' && stopped.thresholds[0]).toMatchObject({ verdict: 'pass', exceeded: 0 });
  });
});
