/**
 * prompt.prefixes through whole runs. Against a recording server: every request of a prefix group starts
 * with exactly the same K tokens (and no more in common), sends its group's prompt_cache_key, and is
 * labelled with its group in requests.csv (joined on x-request-id); summary.json and breakdowns.csv count
 * the groups. Against the emulator (in this process; its prompt cache matches prompt prefixes per
 * prompt_cache_key): reused groups report cached tokens, and a cache hit ratio in (0, 1].
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { encodeTokens } from '../../../src/util/tokenizer.js';
import { parseCsvRecords } from '../../../src/report/compare/parse-csv.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import {
  RECORDING_MODEL,
  startRecordingChatServer,
  type RecordingChatServer,
} from '../../helpers/recording-chat-server.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-prefixes-');
const emulators = useInProcessEmulators();
const K = 300;

let server: RecordingChatServer;
beforeAll(async () => {
  server = await startRecordingChatServer();
});
afterAll(async () => {
  await server.close();
});

function commonTokens(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

describe('prompt.prefixes in a run', () => {
  it('sends K identical leading tokens and one prompt_cache_key per group, labels the requests and counts them', async () => {
    const profile = folder.writeProfile(
      'prefixes',
      `name: prefixes
scenarios:
  - name: docs
    models: [${RECORDING_MODEL}]
    load: { mode: concurrency, concurrency: 4 }
    requests: 60
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 50, prefixes: { groups: 3, tokens: ${K}, share: 0.8 } }
`,
    );
    const out = join(folder.dir, 'recorded');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    expect(server.chats).toHaveLength(60);

    const byKey = new Map<string, number[][]>();
    const keyOf = new Map<string, string>();
    for (const chat of server.chats) {
      const user = (chat.body.messages as ChatMessage[]).find((m) => m.role === 'user')!.content as string;
      const key = (chat.body.prompt_cache_key as string | undefined) ?? 'none';
      keyOf.set(chat.requestId!, key);
      byKey.set(key, [...(byKey.get(key) ?? []), encodeTokens(user)]);
    }
    const keys = [...byKey.keys()].filter((key) => key !== 'none').sort();
    expect(keys).toHaveLength(3);
    for (const [i, key] of keys.entries()) expect(key).toMatch(new RegExp(`^docs-[0-9a-f]{8}-p${i}$`));
    const firstTokens: number[][] = [];
    for (const key of keys) {
      const prompts = byKey.get(key)!;
      expect(prompts.length).toBeGreaterThan(5);
      // Exactly K tokens in common over the whole group: the prefix, and nothing of the per-request text.
      const common = Math.min(...prompts.map((tokens) => commonTokens(tokens, prompts[0]!)));
      expect(common).toBe(K);
      for (const tokens of prompts) expect(tokens).toHaveLength(K + 50);
      firstTokens.push(prompts[0]!.slice(0, K));
    }
    // The groups' prefixes differ from one another (from their first tokens).
    expect(commonTokens(firstTokens[0]!, firstTokens[1]!)).toBeLessThan(10);
    for (const tokens of byKey.get('none') ?? []) expect(tokens).toHaveLength(50);

    // requests.csv: the labels column agrees with the key each request sent.
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    expect(rows).toHaveLength(60);
    for (const row of rows) {
      const key = keyOf.get(row.request_id!)!;
      expect(row.labels).toBe(`prefix=${key === 'none' ? 'none' : key.slice(key.lastIndexOf('-') + 1)}`);
    }

    const group = readSummary(out).groups[0]!;
    const prefix = group.breakdowns!.prefix!;
    expect(Object.keys(prefix)).toEqual(['p0', 'p1', 'p2', ...(byKey.has('none') ? ['none'] : [])]);
    for (const [value, cell] of Object.entries(prefix)) {
      const sent = value === 'none' ? byKey.get('none')!.length : byKey.get(keys[Number(value.slice(1))]!)!.length;
      expect(cell.requests).toBe(sent);
      expect(cell.ok).toBe(sent);
      expect(cell.ttft_ms.count).toBe(sent);
    }
    const csv = readFileSync(join(out, 'breakdowns.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^group,scenario,model,tier,label,value,requests,ok,failed,ttft_ms_count/);
    expect(csv).toHaveLength(1 + Object.keys(prefix).length);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('Per-label breakdowns');
  });

  it('gets cached tokens per reused group from the embedded emulator', async () => {
    const profile = folder.writeProfile(
      'prefixes-emulator',
      `name: prefixes-emulator
scenarios:
  - name: docs
    load: { mode: concurrency, concurrency: 2 }
    requests: 40
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 64, prefixes: { groups: 2, tokens: 1024, share: 0.75 } }
`,
    );
    const out = join(folder.dir, 'emulated');
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const group = readSummary(out).groups[0]!;
    const prefix = group.breakdowns!.prefix!;
    for (const value of ['p0', 'p1']) {
      const cell = prefix[value]!;
      expect(cell.requests).toBeGreaterThan(2);
      expect(cell.cached_tokens).toBeGreaterThan(0);
      expect(cell.cache_hit_ratio).toBeGreaterThan(0);
      expect(cell.cache_hit_ratio).toBeLessThanOrEqual(1);
      // Every request but the group's first (and any sent while it was in flight) reuses most of the 1,024 tokens.
      expect(cell.cached_tokens).toBeGreaterThanOrEqual((cell.requests - 2) * 896);
    }
    // Requests without a prefix send no prompt_cache_key: the emulator caches nothing for them.
    expect(prefix.none!.cached_tokens).toBe(0);
  });
});
