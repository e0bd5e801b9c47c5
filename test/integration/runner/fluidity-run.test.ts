/**
 * fluidity_index through a whole run, against a purpose-built server with known timing: every answer is
 * 10 chunks of text, the first at once. One request gets them every 20 ms (tbt deadline 200 ms: 1.0), the
 * other stalls 640 ms before its second chunk (TTFT deadline 200 ms leaves ~195-199 ms of slack, so the
 * stall misses floor((640 - slack) / 200) = 2 deadlines: 9 of 11 met, 0.818). The deadlines are wide so
 * that a loaded machine's event-loop delay (tens of ms) cannot move a chunk across one: the count stays 2
 * for any delay from -40 to +150 ms. summary.json has its histogram and stats, requests.csv and
 * summary.csv its column and rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../../src/aggregate/histogram.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  chunk,
  playScript,
  type ScriptStep,
  sendJson,
  sseData,
  startTestServer,
  type TestServer,
} from '../../helpers/fault-servers.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-fluidity-');
const TOKENS = 10;

/** Ten text chunks, the first at once, the second after `secondMs`, the rest 20 ms apart. */
function answer(secondMs: number): ScriptStep[] {
  const steps: ScriptStep[] = [{ write: sseData(chunk({ role: 'assistant', content: '' })) }];
  for (let i = 0; i < TOKENS; i++)
    steps.push({ afterMs: i === 0 ? 0 : i === 1 ? secondMs : 20, write: sseData(chunk({ content: ` w${i}` })) });
  const usage = { prompt_tokens: 8, completion_tokens: TOKENS, total_tokens: 8 + TOKENS };
  steps.push({ write: sseData(chunk({}, 'stop', { usage })) }, { end: true });
  return steps;
}

let server: TestServer;
beforeAll(async () => {
  let posts = 0;
  server = await startTestServer((req, res) => {
    if (req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'test-model', object: 'model', owned_by: 'test' }] });
      return;
    }
    playScript(res, answer(posts++ === 0 ? 20 : 640));
  });
});
afterAll(async () => {
  await server.close();
});

function csvRows(path: string): Record<string, string>[] {
  const [header, ...rows] = readFileSync(path, 'utf8').trim().split('\n');
  const names = (header as string).split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [names[i], cell])));
}

describe('fluidity_index in a run', () => {
  it('is 1.0 for steady tokens and 9/11 for the stalled answer, in summary.json, requests.csv and summary.csv', async () => {
    const profile = folder.writeProfile(
      'fluidity',
      `name: fluidity
deadlines: { ttft: 200ms, tbt: 200ms }
scenarios:
  - name: s
    models: [test-model]
    load: { mode: concurrency, concurrency: 1 }
    requests: 2
    request: { max_completion_tokens: ${TOKENS} }
    prompt: { input_tokens: 8 }
thresholds: ["fluidity_index.min >= 0.8", "fluidity_index.p1 < 0.9"]
`,
    );
    const out = join(folder.dir, 'run');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);

    const requests = csvRows(join(out, 'requests.csv'));
    expect(requests.map((row) => row.fluidity_index)).toEqual(['1', '0.818']);

    const group = readSummary(out).groups[0]!;
    expect(group.metrics.fluidity_index).toMatchObject({ count: 2, min: 0.818, p1: 0.818, max: 1 });
    const histogram = decodeHistogram(group.histograms.fluidity_index as string);
    expect([histogram.totalCount, histogram.minNonZeroValue, histogram.maxValue]).toEqual([2, 818, 1000]);
    expect(readSummary(out).thresholds.every((t) => t.passed)).toBe(true);

    const summaryRow = csvRows(join(out, 'summary.csv')).find((row) => row.metric === 'fluidity_index');
    expect(summaryRow).toMatchObject({ count: '2', min: '0.818', max: '1', p1: '0.818' });
  });
});
