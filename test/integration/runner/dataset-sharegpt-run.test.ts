/**
 * profiles/dataset-sharegpt.yaml run as a user would (`inferbench run`, in-process) against a vLLM-like
 * server that records every body: the prompts it receives are exactly the first user turns (with their
 * system turn) of the sample's conversations that pass the profile's filters, in the seeded order, each
 * once, with max_completion_tokens set to the conversation's own answer length; a second run sends the same
 * sequence. A duration-bound without_replacement scenario that uses its entries up says so in
 * summary.json harness.warnings.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/metrics/run-summary.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { createRng } from '../../../src/util/rng.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { shuffledOrder } from '../../../src/workload/dataset/dataset-sampling.js';
import { streamSeed } from '../../../src/workload/request-seed.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { startVllmLikeServer } from '../../helpers/vllm-like-server.js';
import type { VllmLikeServer } from '../../helpers/vllm-like-server.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const PROFILE = join(ROOT, 'profiles/dataset-sharegpt.yaml');
const SAMPLE = join(ROOT, 'profiles/datasets/sharegpt-sample.json');
const dir = mkdtempSync(join(tmpdir(), 'inferbench-dataset-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const servers: VllmLikeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Turn {
  from: string;
  value: string;
}

/**
 * What scenario first-turns should send, derived from the file and the profile's filters by hand: each
 * kept conversation's system turns before its first human turn and that turn, with the first gpt turn's
 * tokens; in the order of the scenario's seeded shuffle (seed 13, scenario name, "dataset-order").
 */
function expectedFirstTurns(): { messages: ChatMessage[]; answerTokens: number }[] {
  const conversations = (JSON.parse(readFileSync(SAMPLE, 'utf8')) as { conversations: Turn[] }[]).map(
    (c) => c.conversations,
  );
  const kept = conversations.flatMap((turns) => {
    const user = turns.findIndex((t) => t.from === 'human');
    if (user < 0) return [];
    const system = turns.slice(0, user).filter((t) => t.from === 'system');
    const answer = turns.slice(user + 1).find((t) => t.from === 'gpt');
    const messages: ChatMessage[] = [
      ...system.map((t) => ({ role: 'system' as const, content: t.value })),
      { role: 'user', content: turns[user]!.value },
    ];
    const input = messages.reduce((sum, m) => sum + countTokens(m.content as string), 0);
    const answerTokens = answer ? countTokens(answer.value) : 0;
    // The profile: min_input_tokens 4, max_input_tokens 40, min_output_tokens 8, max_output_tokens 150.
    return input >= 4 && input <= 40 && answerTokens >= 8 && answerTokens <= 150 ? [{ messages, answerTokens }] : [];
  });
  const order = shuffledOrder(kept.length, createRng(streamSeed(13, 'first-turns', 'dataset-order')));
  return order.map((i) => kept[i]!);
}

async function runFirstTurns(name: string): Promise<{ server: VllmLikeServer; summary: RunSummary }> {
  const server = await startVllmLikeServer({ tokens: 4 });
  servers.push(server);
  const out = join(dir, name);
  const result = await runCliInProcess(
    [
      'run',
      PROFILE,
      '--base-url',
      server.url,
      '--out',
      out,
      // One user, so the server sees the requests in the order they were built; the second scenario short.
      '--set',
      'scenarios[0].load.concurrency=1',
      '--set',
      'scenarios[1].duration=1s',
    ],
    { cwd: dir },
  );
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code).toBe(0);
  return { server, summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary };
}

describe('profiles/dataset-sharegpt.yaml against a recording server', () => {
  it('sends the first user turns of the kept conversations, once each, in the seeded order, with their answer lengths', {
    timeout: 60_000,
  }, async () => {
    const expected = expectedFirstTurns();
    // 40 conversations: 1 without a human turn, and the filters drop a few more; 30 requests fit.
    expect(expected.length).toBe(35);
    const { server, summary } = await runFirstTurns('first');
    const firstTurns = server.bodies.slice(0, 30);
    expect(firstTurns.map((b) => b['messages'])).toEqual(expected.slice(0, 30).map((e) => e.messages));
    expect(firstTurns.map((b) => b['max_completion_tokens'])).toEqual(expected.slice(0, 30).map((e) => e.answerTokens));
    expect(summary.groups.find((g) => g.scenario === 'first-turns')!.requests.ok).toBe(30);
    // The second scenario drew with replacement from the 39 conversations with a user turn (and an answer).
    const conversations = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { conversations: Turn[] }[];
    const firstHuman = new Set(
      conversations.flatMap((c) => c.conversations.find((t) => t.from === 'human')?.value ?? []),
    );
    expect(firstHuman.size).toBe(39);
    const resampled = server.bodies.slice(30).map((b) => (b['messages'] as ChatMessage[]).at(-1)!.content as string);
    expect(resampled.length).toBeGreaterThan(3);
    for (const text of resampled) expect(firstHuman).toContain(text);

    const again = await runFirstTurns('again');
    expect(again.server.bodies.slice(0, 30).map((b) => b['messages'])).toEqual(firstTurns.map((b) => b['messages']));
  });

  it('a duration-bound without_replacement scenario that uses its entries up warns in summary.json', {
    timeout: 60_000,
  }, async () => {
    const server = await startVllmLikeServer({ tokens: 2 });
    servers.push(server);
    // An open loop of 20/s: ~20 requests use the 3 entries up; a closed loop on this server, which answers
    // at once, sent as many as the client could for the whole second.
    const profile = join(dir, 'exhaust.yaml');
    writeFileSync(
      profile,
      `name: exhaust\nscenarios:\n  - name: few\n    load: { mode: rate, rate: 20, arrival: constant }\n    duration: 1s\n    prompt: { dataset: { path: ${SAMPLE}, limit: 3, sample: without_replacement } }\n`,
    );
    const out = join(dir, 'exhaust');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: dir });
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(server.bodies.length).toBeGreaterThan(3);
    expect(new Set(server.bodies.map((b) => JSON.stringify(b['messages']))).size).toBe(3);
    expect(summary.harness.warnings).toContain(
      'scenario few: prompt.dataset (sample: without_replacement) ran out of its 3 entries at request 4; later requests reused them in the same seeded order',
    );
    expect(result.stderr).toContain('ran out of its 3 entries');
  });
});
