/**
 * The scraper's schedule in virtual time (a ManualClock and a getter that answers after scripted virtual
 * delays: the HTTP side is tested over real sockets in test/integration/server-metrics/): one GET per
 * interval at start + k x interval, never two at once (a tick during a slow scrape is skipped and counted),
 * each scrape stamped with the clock, `auto` deciding the engine once, and stop() taking one last scrape and
 * leaving no timer behind.
 * Also the text wrapper (exposition.ts) and the per-window quantile.
 */
import { describe, expect, it } from 'vitest';
import { bucketQuantile, serverWindows } from '../../../src/aggregate/server-metrics/server-window.js';
import { parseExposition } from '../../../src/client/server-metrics/exposition.js';
import type { EndpointGetter, ScrapeOutcome } from '../../../src/client/server-metrics/scrape-endpoint.js';
import { startServerMetrics } from '../../../src/client/server-metrics/scraper.js';
import { ManualClock } from '../../../src/util/clock.js';
import { endpointSpec } from '../../helpers/engine-metrics-server.js';
import { runInVirtualTime } from '../../helpers/virtual-time.js';

/** A getter whose i-th GET answers after delays[i] ms of virtual time with `vllm:num_requests_waiting i`. */
function scriptedGetter(clock: ManualClock, delaysMs: readonly number[]) {
  let calls = 0;
  const getter: EndpointGetter = {
    get: (timeoutMs) => {
      const i = calls++;
      const delay = delaysMs[i] ?? 10;
      return new Promise<ScrapeOutcome>((resolve) => {
        if (delay > timeoutMs) {
          clock.setTimer(() => resolve({ ok: false, kind: 'timeout', message: 'no answer', bytes: 0 }), timeoutMs);
          return;
        }
        clock.setTimer(
          () => resolve({ ok: true, bytes: 40, text: `vllm:num_requests_waiting ${i}\nunrelated_metric 1\n` }),
          delay,
        );
      });
    },
    close: async () => undefined,
  };
  return getter;
}

describe('the scrape schedule (virtual time)', () => {
  it('scrapes at start + k x interval; a tick during a slow scrape is skipped; failures are counted by kind', async () => {
    const clock = new ManualClock(0);
    // 2nd GET takes 2.5 s (timeout 3 s): the ticks at 2 s and 3 s find it still going.
    const getter = scriptedGetter(clock, [10, 2500, 10, 5000, 10]);
    const session = startServerMetrics([endpointSpec('http://x/metrics', { intervalMs: 1000, timeoutMs: 3000 })], {
      clock,
      env: {},
      openGetter: () => getter,
    });
    await runInVirtualTime(clock, new Promise<void>((resolve) => clock.setTimer(resolve, 9_500)));
    // stop() at 9.5 s takes one last scrape (its GET on the clock too).
    const [log] = await runInVirtualTime(clock, session.stop());
    expect(clock.pendingTimers).toBe(0);
    // GETs at 0 (+1 ms: a timer never fires at once), 1 s, 4 s, 5 s (times out at 8 s), 8 s, 9 s; the last at 9.5 s.
    expect(log?.scrapes.map((s) => s.startUs / 1000)).toEqual([1, 1000, 4000, 8000, 9000, 9500]);
    expect(log?.scrapes.map((s) => (s.endUs - s.startUs) / 1000)).toEqual([10, 2500, 10, 10, 10, 10]);
    expect(log?.attempts).toBe(7);
    // Ticks at 2 s and 3 s (the slow GET), 6 s and 7 s (the one that times out at 8 s).
    expect(log?.skipped).toBe(4);
    expect(log?.failures.count).toBe(1);
    expect(log?.failures.byKind.timeout).toBe(1);
    expect(log?.failures.at).toEqual([{ startUs: 5_000_000, kind: 'timeout' }]);
    // auto decided on the first answer and kept only vLLM's names.
    expect(log?.engine).toBe('vllm');
    expect(log?.scrapes.every((s) => s.samples.every((x) => x.name === 'vllm:num_requests_waiting'))).toBe(true);
    // Per-second windows (from, to]: the last gauge of the scrapes inside each (the scrape at exactly 1 s
    // belongs to the first), nothing where none was; the failure in its window.
    const windows = serverWindows(log!, 0, 10_000_000);
    expect(windows.map((w) => (w.concepts.waiting?.kind === 'gauge' ? w.concepts.waiting.last : null))).toEqual([
      1,
      null,
      null,
      2,
      null,
      null,
      null,
      4,
      5,
      6,
    ]);
    expect(windows[0]?.concepts.waiting).toMatchObject({ min: 0, max: 1, mean: 0.5 });
    expect(windows.map((w) => w.failures)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('without endpoints does nothing; stop() is immediate', async () => {
    const clock = new ManualClock(0);
    const session = startServerMetrics([], { clock, env: {} });
    expect(clock.pendingTimers).toBe(0);
    expect(await session.stop()).toEqual([]);
  });
});

describe('the text format (exposition.ts over parse-prometheus-text-format)', () => {
  it('keeps every label of histogram series, escapes, NaN, +Inf, timestamps; OpenMetrics _created and # EOF', () => {
    const text = [
      '# HELP h A histogram.',
      '# TYPE h histogram',
      'h_sum{model_name="a"} 1.5',
      'h_bucket{le="0.1",model_name="a"} 1',
      'h_bucket{le="+Inf",model_name="a"} 2',
      'h_count{model_name="a"} 2',
      'h_bucket{le="0.1",model_name="b"} 3',
      'h_bucket{le="+Inf",model_name="b"} 4',
      'h_count{model_name="b"} 4',
      'h_sum{model_name="b"} 2.5',
      '# TYPE c counter',
      'c_total{path="a \\"b\\" \\\\ c\\nd"} 7 1700000000000',
      'c_created{path="x"} 1.7e9',
      'g NaN',
      'i +Inf',
      'j -Inf',
      '# EOF',
    ].join('\n');
    const parsed = parseExposition(text, 100);
    if (!parsed.ok) throw new Error(parsed.message);
    const by = (name: string) => parsed.samples.filter((s) => s.name === name);
    expect(by('h_bucket')).toEqual([
      { name: 'h_bucket', labels: { le: '0.1', model_name: 'a' }, value: 1 },
      { name: 'h_bucket', labels: { le: '+Inf', model_name: 'a' }, value: 2 },
      { name: 'h_bucket', labels: { le: '0.1', model_name: 'b' }, value: 3 },
      { name: 'h_bucket', labels: { le: '+Inf', model_name: 'b' }, value: 4 },
    ]);
    expect(by('h_sum').map((s) => s.value)).toEqual([1.5, 2.5]);
    expect(by('c_total')).toEqual([{ name: 'c_total', labels: { path: 'a "b" \\ c\nd' }, value: 7 }]);
    expect(by('c_created')[0]?.value).toBe(1.7e9);
    expect(by('g')[0]?.value).toBeNaN();
    expect(by('i')[0]?.value).toBe(Number.POSITIVE_INFINITY);
    expect(by('j')[0]?.value).toBe(Number.NEGATIVE_INFINITY);
    expect(parsed.types.get('h')).toBe('histogram');
    // A last line without a newline is read too.
    const last = parseExposition('a 1\nb 2', 10);
    expect(last.ok && last.samples.map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('classifies what is not the format, never throws', () => {
    const kind = (text: string, max = 100) => {
      const r = parseExposition(text, max);
      return r.ok ? 'ok' : r.kind;
    };
    expect(kind('<!doctype html><html></html>')).toBe('not_prometheus');
    expect(kind('{"error": "not here"}')).toBe('not_prometheus');
    expect(kind('foo{ 1\n')).toBe('parse');
    expect(kind('b{x="1"} abc\n')).toBe('parse');
    expect(kind('a 1\nb 2\nc 3\n', 2)).toBe('too_large');
    expect(kind('')).toBe('ok');
    expect(kind('# only comments\n')).toBe('ok');
  });
});

describe('bucketQuantile (Prometheus histogram_quantile)', () => {
  it('interpolates within the bucket, takes 0 as the first lower bound, and the last finite bound in +Inf', () => {
    const buckets: [number, number][] = [
      [100, 4],
      [500, 8],
      [1000, 10],
      [Number.POSITIVE_INFINITY, 12],
    ];
    expect(bucketQuantile(0.25, buckets)).toBe(75);
    expect(bucketQuantile(0.5, buckets)).toBe(100 + (400 * 2) / 4);
    expect(bucketQuantile(0.99, buckets)).toBe(1000);
    expect(bucketQuantile(0.5, [[Number.POSITIVE_INFINITY, 0]])).toBeNull();
  });
});
