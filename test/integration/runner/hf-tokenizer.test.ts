/**
 * target.tokenizer (issue 9, item 2): a Hugging Face tokenizer.json counts what a server sends without
 * usage (flagged estimated) instead of o200k_base, summary.json says which tokenizer counted, and a
 * missing or invalid file is a profile error naming it (exit 2). The fixture is a tiny WordLevel
 * vocabulary (test/fixtures/tokenizers/tiny-wordlevel.json): one token per whitespace-separated word.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokensBounded } from '../../../src/util/bounded-tokens.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { chunk, sendJson, sseData, startTestServer } from '../../helpers/fault-servers.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const FIXTURE = resolve(import.meta.dirname, '..', '..', 'fixtures', 'tokenizers', 'tiny-wordlevel.json');
const folder = useRunFolder('inferbench-hf-tokenizer-');
/** 12 words: 12 WordLevel tokens; o200k splits the long made-up words into several tokens each. */
const ANSWER = 'the supercalifragilistic model floccinaucinihilipilification streams tokens '.repeat(2).trim();

describe('a tokenizer.json tokenizer', () => {
  it('counts with its own vocabulary, where o200k counts differently', async () => {
    const tokenizer = await loadHfTokenizer(FIXTURE);
    expect(tokenizer.name).toBe(FIXTURE);
    expect(tokenizer.count(ANSWER)).toBe(12);
    expect(countTokens(ANSWER)).toBeGreaterThan(20);
    expect(tokenizer.count('the model token')).toBe(3);
    // Through the bounded counter too (the one the runner uses on received text).
    expect(countTokensBounded(tokenizer, `${ANSWER} ${ANSWER}`)).toBe(24);
  });

  it('a run against a server without usage reports the tokenizer.json counts, flagged estimated', async () => {
    const server = await startTestServer((req, res) => {
      if (req.method === 'GET')
        return sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'no-usage', object: 'model', created: 0, owned_by: 't' }],
        });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseData(chunk({ role: 'assistant', content: '' })));
      for (const word of ANSWER.split(/(?= )/)) res.write(sseData(chunk({ content: word })));
      res.end(sseData(chunk({}, 'stop')));
    });
    try {
      const profile = join(folder.dir, 'hf.yaml');
      writeFileSync(
        profile,
        `name: hf
target: { tokenizer: ${JSON.stringify(FIXTURE)} }
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 1 }
    requests: 3
    request: { stream: true, max_completion_tokens: 16 }
    prompt: { input_tokens: 8 }
`,
      );
      const out = join(folder.dir, 'hf-run');
      const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
        cwd: folder.dir,
      });
      expect(result.code, result.stderr).toBe(0);
      const summary = readSummary(out);
      expect(summary.target.tokenizer).toBe(FIXTURE);
      const group = summary.groups[0]!;
      expect(group.tokens.estimated_requests).toBe(3);
      expect(group.metrics.output_tokens).toMatchObject({ min: 12, max: 12 });
    } finally {
      await server.close();
    }
  });

  it('a missing or invalid tokenizer.json is a profile error naming the file (exit 2)', async () => {
    const bad = join(folder.dir, 'not-a-tokenizer.json');
    writeFileSync(bad, '{"model": {"type": "NoSuchModel"}}');
    for (const file of [bad, join(folder.dir, 'missing.json')]) {
      const profile = join(folder.dir, 'bad.yaml');
      writeFileSync(
        profile,
        `name: bad\ntarget: { base_url: "http://127.0.0.1:9", tokenizer: ${JSON.stringify(file)} }\nscenarios:\n  - name: s\n    requests: 1\n`,
      );
      const result = await runCliInProcess(['run', profile, '--out', join(folder.dir, 'bad-run')], { cwd: folder.dir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(file);
    }
  });
});
