/**
 * target.tokenizer sizes prompts (issue 9, item 2): a run against a purpose-built server that counts the
 * prompt it received with the same tokenizer.json (as a vLLM serving that model would) and reports it
 * as usage.prompt_tokens shows input_tokens equal to the requested prompt.input_tokens, and the
 * system prompt and shared prefix add up; `validate` builds its first requests with the same tokenizer.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import type { EncodingTokenizer } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { chunk, sendJson, sseData, startTestServer } from '../../helpers/fault-servers.js';
import type { TestServer } from '../../helpers/fault-servers.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const FIXTURE = resolve(import.meta.dirname, '..', '..', 'fixtures', 'tokenizers', 'tiny-bytelevel-bpe.json');
const folder = useRunFolder('inferbench-hf-prompts-');
const SYSTEM = 'You are a terse assistant, answering with data.';

let tokenizer: EncodingTokenizer;
let server: TestServer;
/** Prompt tokens of every chat request the server received, counted with the fixture tokenizer. */
const received: number[] = [];

beforeAll(async () => {
  tokenizer = await loadHfTokenizer(FIXTURE);
  server = await startTestServer((req, res) => {
    if (req.method === 'GET')
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'bpe-model', object: 'model', created: 0, owned_by: 't' }],
      });
    const body = JSON.parse(req.body.toString('utf8')) as { messages: ChatMessage[] };
    const promptTokens = body.messages.reduce(
      (sum, m) => sum + (typeof m.content === 'string' ? tokenizer.count(m.content) : 0),
      0,
    );
    received.push(promptTokens);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseData(chunk({ role: 'assistant', content: '' })));
    res.write(sseData(chunk({ content: ' the model' })));
    res.end(
      sseData(
        chunk({}, 'stop', {
          usage: { prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 },
        }),
      ),
    );
  });
});

afterAll(async () => {
  await server.close();
});

function writeProfile(name: string, prompt: string): string {
  const path = join(folder.dir, `${name}.yaml`);
  writeFileSync(
    path,
    `name: ${name}
target: { tokenizer: ${JSON.stringify(FIXTURE)} }
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 2 }
    requests: 12
    request: { stream: true, max_completion_tokens: 4 }
    prompt: ${prompt}
`,
  );
  return path;
}

describe('prompts sized in target.tokenizer', () => {
  it('reach a server counting with that tokenizer at exactly the requested input tokens', async () => {
    for (const tokens of [1, 7, 64, 500]) {
      received.length = 0;
      const out = join(folder.dir, `run-${tokens}`);
      const result = await runCliInProcess(
        ['run', writeProfile(`fixed-${tokens}`, `{ input_tokens: ${tokens} }`), '--base-url', server.url, '--out', out],
        { cwd: folder.dir },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(received).toHaveLength(12);
      expect(new Set(received)).toEqual(new Set([tokens]));
      const group = readSummary(out).groups[0]!;
      expect(group.metrics.input_tokens).toMatchObject({ count: 12, min: tokens, max: tokens });
      expect(group.tokens.estimated_requests).toBe(0);
    }
  });

  it('count the system prompt and the shared prefix with it too', async () => {
    received.length = 0;
    const out = join(folder.dir, 'run-prefix');
    const profile = writeProfile(
      'prefix',
      `{ input_tokens: { dist: uniform, min: 10, max: 300 }, shared_prefix_tokens: 50, system: ${JSON.stringify(SYSTEM)} }`,
    );
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    const fixed = tokenizer.count(SYSTEM) + 50;
    expect(received).toHaveLength(12);
    for (const tokens of received) expect(tokens - fixed).toBeGreaterThanOrEqual(10);
    for (const tokens of received) expect(tokens - fixed).toBeLessThanOrEqual(300);
    // Every request's expected count (what the workload says it sent) is what the server counted.
    const validate = await runCliInProcess(['validate', profile, '--json'], { cwd: folder.dir });
    expect(validate.code, validate.stderr).toBe(0);
    const first = (JSON.parse(validate.stdout) as { first_requests: { input_tokens: number }[] }).first_requests[0]!;
    expect(received).toContain(first.input_tokens);
  });
});
