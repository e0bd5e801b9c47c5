/**
 * Multi-turn sessions end to end through the CLI, against servers that record what they received: each
 * turn carries exactly the earlier user messages and the server's own earlier answers in order, one
 * prompt_cache_key per session, after the think time; a failed turn ends its session; the end of the
 * duration and Ctrl-C end sessions after their current turn; sessions are whole scheduled units (shards,
 * max_concurrency); a vLLM-like server and non-streaming answers work the same. The emulator's side (cache
 * growth, tool loop) is in sessions-emulator.test.ts.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { type ConversationServer, startConversationServer } from '../../helpers/conversation-server.js';
import { bySession, csvRows, messagesOf } from '../../helpers/conversation-bodies.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../../helpers/run-folder.js';
import { startVllmLikeServer, type VllmLikeServer } from '../../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-sessions-');

/**
 * Writes a profile that counts with the tiny tokenizer: these tests are about conversations, not counts,
 * and o200k would load in this thread and again in each worker thread (seconds each).
 */
function writeProfile(name: string, yaml: string): string {
  return folder.writeProfile(name, `target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n${yaml}`);
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function run(name: string, yaml: string, baseUrl?: string) {
  const out = join(folder.dir, name);
  const args = ['run', writeProfile(name, yaml), '--out', out, '--quiet'];
  if (baseUrl) args.push('--base-url', baseUrl);
  const result = await runCliInProcess(args, { cwd: folder.dir });
  return { ...result, out };
}

describe('sessions against a recording server', () => {
  it("sends each turn with the earlier user turns and the server's exact answers, one cache key per session, after the think time", async () => {
    const server: ConversationServer = await startConversationServer();
    servers.push(server);
    const { code, stderr, out } = await run(
      'recorded',
      `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 2 }
    requests: 4
    prompt: { input_tokens: 20 }
    session: { turns: 3, think_time: 300ms, user_tokens: 12 }
`,
      server.url,
    );
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    // requests: 4 counts sessions; each has 3 turns.
    expect(server.bodies).toHaveLength(12);
    const sessions = bySession(server.bodies);
    expect(sessions.size).toBe(4);
    for (const [key, indices] of sessions) {
      expect(key).toMatch(/^inferbench-[0-9a-f]+-\d+$/);
      expect(indices).toHaveLength(3);
      const users: string[] = [];
      indices.forEach((at, k) => {
        const messages = messagesOf(server.bodies[at]!);
        // Turn k+1: k+1 user messages and the k answers before it, alternating, the answers exactly the server's.
        expect(messages.map((m) => m.role)).toEqual(
          Array.from({ length: 2 * k + 1 }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant')),
        );
        for (let j = 0; j < k; j++) {
          expect(messages[2 * j]!.content).toBe(users[j]);
          expect(messages[2 * j + 1]!.content).toBe(server.answers[indices[j]!]);
        }
        users.push(messages[2 * k]!.content as string);
        if (k > 0) {
          // The think time passed between the answer's end and the next turn (loose upper bound: a loaded machine).
          const gapMs = server.arrivedMs[at]! - server.endedMs[indices[k - 1]!]!;
          expect(gapMs).toBeGreaterThanOrEqual(290);
          expect(gapMs).toBeLessThan(2500);
        }
      });
      expect(new Set(users).size).toBe(3);
    }
    const rows = csvRows(out);
    expect(rows).toHaveLength(12);
    const turns = rows.map((row) => row.labels).sort();
    expect(turns).toEqual([...Array(4).fill('turn=1'), ...Array(4).fill('turn=2'), ...Array(4).fill('turn=3')]);
  }, 30_000);

  it('sends the same user side in every run (seeded), and another with another seed', async () => {
    const bodiesOf = async (name: string, seed: number): Promise<string[]> => {
      const server = await startConversationServer();
      servers.push(server);
      const { code } = await run(
        name,
        `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 1 }
    requests: 3
    seed: ${seed}
    prompt: { input_tokens: 10 }
    session: { turns: { dist: uniform, min: 1, max: 4 }, think_time: { dist: exponential, mean: 5ms }, user_tokens: 8 }
`,
        server.url,
      );
      expect(code).toBe(0);
      return server.bodies.map((body) =>
        messagesOf(body)
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .join('|'),
      );
    };
    const first = await bodiesOf('seeded-a', 7);
    expect(await bodiesOf('seeded-b', 7)).toEqual(first);
    expect(await bodiesOf('seeded-c', 8)).not.toEqual(first);
  }, 30_000);

  it('ends a session at its failed turn: the later turns are never sent', async () => {
    // Turn 2 of every session (3 messages) fails with a 500.
    const server = await startConversationServer({ failFor: (body) => (messagesOf(body).length === 3 ? 500 : 0) });
    servers.push(server);
    const { out } = await run(
      'failing',
      `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 1 }
    requests: 2
    prompt: { input_tokens: 10 }
    session: { turns: 3 }
`,
      server.url,
    );
    expect(server.bodies.map((body) => messagesOf(body).length)).toEqual([1, 3, 1, 3]);
    const group = readSummary(out).groups[0]!;
    expect(group.requests.ok).toBe(2);
    expect(group.requests.failed).toBe(2);
  }, 30_000);
});

describe('sessions against an OpenAI-compatible (vLLM-like) server', () => {
  it("sends the server's answers back as the conversation", async () => {
    const server: VllmLikeServer = await startVllmLikeServer({ tokens: 5 });
    servers.push(server);
    const { code, out } = await run(
      'vllm-sessions',
      `scenarios:
  - name: chat
    load: { mode: rate, rate: 20, arrival: constant }
    requests: 3
    warmup_requests: 1
    prompt: { input_tokens: 10 }
    session: { turns: 2, think_time: 20ms }
`,
      server.url,
    );
    expect(code).toBe(0);
    // warmup_requests: 1 is one whole session, sent and never counted.
    expect(readSummary(out).groups[0]!.requests.ok).toBe(6);
    const sessions = bySession(server.bodies);
    expect(sessions.size).toBe(4);
    for (const [, [first, second]] of sessions) {
      expect(messagesOf(server.bodies[first!]!)).toHaveLength(1);
      const messages = messagesOf(server.bodies[second!]!);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[0]).toEqual(messagesOf(server.bodies[first!]!)[0]);
      // vLLM-like answers: its first five made-up tokens.
      expect(messages[1]!.content).toBe(' zqxvrk plomfa qwj');
    }
  }, 30_000);
});

describe('sessions and the end of a phase', () => {
  it('stops sending turns at the end of the duration: each session ends after its current turn', async () => {
    const server = await startConversationServer({ delayMs: 150 });
    servers.push(server);
    const started = performance.now();
    const { code, out } = await run(
      'duration-end',
      `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 2 }
    duration: 1s
    prompt: { input_tokens: 10 }
    session: { turns: 50 }
`,
      server.url,
    );
    const endedMs = performance.now();
    expect(code).toBe(0);
    // Two sessions of ~150 ms turns: about 6 turns each in 1 s, then no more (never all 50 turns).
    const sessions = bySession(server.bodies);
    expect(sessions.size).toBe(2);
    for (const [, indices] of sessions) {
      expect(indices.length).toBeGreaterThanOrEqual(1);
      expect(indices.length).toBeLessThan(15);
    }
    // No graceful stop of 30 s was waited out: the last turns ended on their own.
    expect(endedMs - started).toBeLessThan(10_000);
    expect(readSummary(out).groups[0]!.requests.failed).toBe(0);
  }, 30_000);

  it('on Ctrl-C cuts think times short and sends no further turn', async () => {
    const server = await startConversationServer();
    servers.push(server);
    const interrupt = new AbortController();
    const path = writeProfile(
      'interrupted',
      `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 2 }
    requests: 2
    prompt: { input_tokens: 10 }
    session: { turns: 5, think_time: 20s }
`,
    );
    const timer = setInterval(() => {
      if (server.bodies.length >= 2) interrupt.abort();
    }, 20);
    const started = performance.now();
    const result = await runCliInProcess(
      ['run', path, '--out', join(folder.dir, 'interrupted-out'), '--quiet', '--base-url', server.url],
      { cwd: folder.dir, interrupt: interrupt.signal },
    );
    clearInterval(timer);
    expect(result.code).toBe(130);
    expect(performance.now() - started).toBeLessThan(10_000);
    // Turn 1 of both sessions, then nothing: the 20 s think times were cut short.
    expect(server.bodies).toHaveLength(2);
  }, 30_000);
});

describe('sessions as scheduled units', () => {
  const userSides = (server: ConversationServer): string[] =>
    [...bySession(server.bodies).values()]
      .map((indices) => {
        const last = messagesOf(server.bodies[indices.at(-1)!]!);
        return last
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .join('|');
      })
      .sort();

  it('shards send whole sessions that together are the sessions of one run', async () => {
    const yaml = `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 2 }
    requests: 6
    prompt: { input_tokens: 10 }
    session: { turns: { dist: uniform, min: 1, max: 3 }, user_tokens: 5 }
`;
    const whole = await startConversationServer();
    const shard1 = await startConversationServer();
    const shard2 = await startConversationServer();
    servers.push(whole, shard1, shard2);
    const path = writeProfile('sharded', yaml);
    const runOn = (server: ConversationServer, out: string, extra: string[]) =>
      runCliInProcess(['run', path, '--out', join(folder.dir, out), '--quiet', '--base-url', server.url, ...extra], {
        cwd: folder.dir,
      });
    expect((await runOn(whole, 'whole', [])).code).toBe(0);
    expect((await runOn(shard1, 'shard1', ['--shard', '1/2'])).code).toBe(0);
    expect((await runOn(shard2, 'shard2', ['--shard', '2/2'])).code).toBe(0);
    expect(bySession(shard1.bodies).size).toBe(3);
    expect(bySession(shard2.bodies).size).toBe(3);
    expect([...userSides(shard1), ...userSides(shard2)].sort()).toEqual(userSides(whole));
    expect(shard1.bodies.length + shard2.bodies.length).toBe(whole.bodies.length);
  }, 30_000);

  it('--workers 2 sends the same whole sessions as one thread', { timeout: 30_000, tags: ['slow'] }, async () => {
    const yaml = `scenarios:
  - name: chat
    load: { mode: concurrency, concurrency: 2 }
    requests: 6
    prompt: { input_tokens: 10 }
    session: { turns: { dist: uniform, min: 1, max: 3 }, user_tokens: 5 }
`;
    const one = await startConversationServer();
    const two = await startConversationServer();
    servers.push(one, two);
    const path = writeProfile('workers', yaml);
    const runOn = (server: ConversationServer, out: string, extra: string[]) =>
      runCliInProcess(['run', path, '--out', join(folder.dir, out), '--quiet', '--base-url', server.url, ...extra], {
        cwd: folder.dir,
      });
    expect((await runOn(one, 'one-thread', [])).code).toBe(0);
    const result = await runOn(two, 'two-workers', ['--workers', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(readSummary(join(folder.dir, 'two-workers')).workers).toBe(2);
    expect(userSides(two)).toEqual(userSides(one));
    expect(readSummary(join(folder.dir, 'two-workers')).groups[0]!.requests.ok).toBe(one.bodies.length);
  });

  it('in open loop, max_concurrency counts sessions: arrivals beyond it are dropped, started sessions finish', async () => {
    const server = await startConversationServer({ delayMs: 50 });
    servers.push(server);
    const { code, out } = await run(
      'open-sessions',
      `scenarios:
  - name: chat
    load: { mode: rate, rate: 40, arrival: constant, max_concurrency: 1 }
    duration: 1s
    prompt: { input_tokens: 10 }
    session: { turns: 3 }
`,
      server.url,
    );
    expect(code).toBe(0);
    const group = readSummary(out).groups[0]!;
    // One session at a time takes ~150 ms: most of the 40 arrivals find it busy.
    expect(group.requests.dropped).toBeGreaterThan(20);
    const sessions = bySession(server.bodies);
    expect(sessions.size).toBeLessThan(15);
    // Every session but one cut short by the end of the duration has all 3 turns.
    expect([...sessions.values()].filter((indices) => indices.length !== 3).length).toBeLessThanOrEqual(1);
  }, 30_000);

  it('works with stream: false (the answer is read from the message)', async () => {
    const server = await startConversationServer();
    servers.push(server);
    const { code } = await run(
      'non-stream',
      `scenarios:
  - name: chat
    requests: 1
    request: { stream: false }
    prompt: { input_tokens: 10 }
    session: { turns: 2 }
`,
      server.url,
    );
    expect(code).toBe(0);
    expect(server.bodies).toHaveLength(2);
    expect(messagesOf(server.bodies[1]!)[1]).toEqual({ role: 'assistant', content: server.answers[0] });
  }, 30_000);
});
