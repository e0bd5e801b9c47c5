/**
 * A scenario `mix` and `reasoning_efforts` through whole runs. Against a recording server: one arrival
 * stream per model x tier x effort feeds the mix's classes (the total rate is the load's, not load x
 * classes), the classes come in exactly the seeded proportions, each with its own prompt and request
 * fields, each effort group sends its reasoning_effort; dropped arrivals count against the class they
 * would have been; `--workers 2` picks exactly what one thread picks. (Against the embedded emulator:
 * mix-and-efforts-emulator.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import { createMixPicker } from '../../../src/workload/mix-pick.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  ARRIVAL_MODEL,
  startArrivalRecordingServer,
  type ArrivalRecordingServer,
} from '../../helpers/arrival-recording-server.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-mix-');
let server: ArrivalRecordingServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const CLASSES = ['short', 'long', 'odd'] as const;
const SHARES = [0.6, 0.3, 0.1];

/**
 * The mix profile: classes told apart by their system prompt. It counts with the tiny tokenizer (the
 * subject is the classes, not token counts): o200k would load in this thread and again in each worker
 * thread of `--workers 2`.
 */
function mixProfile(load: string, limits: string, extra = ''): string {
  return `name: mix
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: mix
    models: [${ARRIVAL_MODEL}]
    load: ${load}
    ${limits}
    seed: 5
    request: { max_completion_tokens: 16, temperature: 0.2 }
    prompt: { input_tokens: 20 }
${extra}    mix:
      - { name: short, weight: 6, prompt: { system: "class short" } }
      - { name: long, weight: 3, prompt: { system: "class long", input_tokens: 200 }, request: { max_completion_tokens: 50 } }
      - { name: odd, weight: 1, prompt: { system: "class odd" }, request: { temperature: 1.5 }, request_extra: { top_k: 3 } }
`;
}

/** How many of workload indices 0..n-1 pick each class (what the run must have sent). */
function expectedCounts(n: number): Record<string, number> {
  const picker = createMixPicker(5, 'mix', SHARES);
  const counts: Record<string, number> = { short: 0, long: 0, odd: 0 };
  for (let i = 0; i < n; i++) counts[CLASSES[picker.pick(i)]!]! += 1;
  return counts;
}

const classOf = (body: Record<string, unknown>): string =>
  ((body.messages as ChatMessage[])[0]!.content as string).replace('class ', '');

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

const byClass = (groups: readonly GroupSummary[], pick: (g: GroupSummary) => number): Record<string, number> =>
  Object.fromEntries(groups.map((g) => [g.class as string, pick(g)]));

describe('a mix and reasoning efforts in a run', () => {
  it('feeds the classes from one arrival stream per effort, in the seeded proportions, each with its own body', async () => {
    server = await startArrivalRecordingServer();
    const profile = folder.writeProfile(
      'mix-efforts',
      mixProfile('{ mode: rate, rate: 20, arrival: constant }', 'requests: 45', '    reasoning_efforts: [low, high]\n'),
    );
    const out = join(folder.dir, 'mix-efforts');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    // 45 per effort (one schedule each), not 45 per class.
    expect(server.chats).toHaveLength(90);
    const expected = expectedCounts(45);
    for (const effort of ['low', 'high']) {
      const chats = server.chats.filter((chat) => chat.body.reasoning_effort === effort);
      expect(chats).toHaveLength(45);
      expect(countBy(chats, (chat) => classOf(chat.body))).toEqual(expected);
      // One stream at 20/s: 44 gaps of 50 ms, 2.2 s (three streams, one per class, would take a third of
      // that, 0.73 s). A late first arrival shortens the span on a loaded machine (1.93 s seen).
      const spanMs = chats.at(-1)!.arrivedMs - chats[0]!.arrivedMs;
      expect(spanMs).toBeGreaterThan(1200);
      expect(spanMs).toBeLessThan(6000);
    }
    for (const chat of server.chats) {
      const cls = classOf(chat.body);
      const user = (chat.body.messages as ChatMessage[])[1]!.content as string;
      expect(chat.body.max_completion_tokens).toBe(cls === 'long' ? 50 : 16);
      expect(chat.body.temperature).toBe(cls === 'odd' ? 1.5 : 0.2);
      expect(chat.body.top_k).toBe(cls === 'odd' ? 3 : undefined);
      expect(user.split(' ').length).toBeGreaterThan(cls === 'long' ? 100 : 5);
      expect(user.split(' ').length).toBeLessThan(cls === 'long' ? 250 : 30);
    }
    const summary = readSummary(out);
    expect(summary.groups.map((g) => [g.key, g.class, g.reasoning_effort])).toEqual([
      [`mix.short.low/${ARRIVAL_MODEL}/-`, 'short', 'low'],
      [`mix.long.low/${ARRIVAL_MODEL}/-`, 'long', 'low'],
      [`mix.odd.low/${ARRIVAL_MODEL}/-`, 'odd', 'low'],
      [`mix.short.high/${ARRIVAL_MODEL}/-`, 'short', 'high'],
      [`mix.long.high/${ARRIVAL_MODEL}/-`, 'long', 'high'],
      [`mix.odd.high/${ARRIVAL_MODEL}/-`, 'odd', 'high'],
    ]);
    for (const effort of ['low', 'high'])
      expect(
        byClass(
          summary.groups.filter((g) => g.reasoning_effort === effort),
          (g) => g.requests.ok,
        ),
      ).toEqual(expected);
  }, 30_000);

  it('counts a dropped arrival against the class it would have been', async () => {
    server = await startArrivalRecordingServer(300);
    const profile = folder.writeProfile(
      'mix-drops',
      mixProfile('{ mode: rate, rate: 20, arrival: constant, max_concurrency: 2 }', 'duration: 2s'),
    );
    const out = join(folder.dir, 'mix-drops');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    const groups = readSummary(out).groups;
    const dropped = groups.reduce((sum, g) => sum + g.requests.dropped, 0);
    const sent = groups.reduce((sum, g) => sum + g.requests.ok + g.requests.failed, 0);
    expect(dropped).toBeGreaterThan(10);
    expect(sent).toBe(server.chats.length);
    // Every arrival, sent or dropped, took the next index: the classes of all of them are the seeded picks.
    const arrivals = byClass(groups, (g) => g.requests.ok + g.requests.failed + g.requests.dropped);
    expect(arrivals).toEqual(expectedCounts(sent + dropped));
  }, 30_000);

  it('picks exactly the same classes with --workers 2 as in one thread', {
    timeout: 30_000,
    tags: ['slow'],
  }, async () => {
    server = await startArrivalRecordingServer();
    const profile = folder.writeProfile(
      'mix-workers',
      mixProfile('{ mode: concurrency, concurrency: 4 }', 'requests: 120'),
    );
    const out = join(folder.dir, 'mix-workers');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out, '--workers', '2'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.chats).toHaveLength(120);
    expect(countBy(server.chats, (chat) => classOf(chat.body))).toEqual(expectedCounts(120));
    const summary = readSummary(out);
    expect(summary.workers).toBe(2);
    expect(byClass(summary.groups, (g) => g.requests.ok)).toEqual(expectedCounts(120));
  });

  it('is refused by capacity, which searches one group alone, before anything is sent', async () => {
    server = await startArrivalRecordingServer();
    const profile = folder.writeProfile(
      'mix-capacity',
      `${mixProfile('{ mode: rate, rate: 5 }', 'duration: 2s')}capacity: { slo: { ttft_ms.p95: 400ms } }\n`,
    );
    const result = await runCliInProcess(
      ['capacity', profile, '--base-url', server.url, '--out', join(folder.dir, 'cap')],
      {
        cwd: folder.dir,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('capacity cannot search scenario mix: it has a mix of request classes');
    expect(server.chats).toHaveLength(0);
  }, 30_000);
});
