/**
 * TTFT of `api: messages` against the known-timing Anthropic server (test/helpers/messages-server.ts):
 * message_start, content_block_start and ping come at once and are no token; TTFT is the first
 * non-empty text_delta, within a millisecond of the server's write of it (both stamped on this process's
 * performance clock), and ITL the gaps between text deltas. The rest of the API's behaviour (body, auth,
 * usage, errors) is in messages-api.test.ts, outside the timing tier.
 * @module-tag timing
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { MODEL, type MessagesServer, startMessagesServer } from '../../helpers/messages-server.js';
import { median, runRecording, servedFor } from '../../helpers/recorded-run.js';

const FIRST_TEXT_MS = 40;
const TOKEN_MS = 4;
const TOKENS = 6;

let server: MessagesServer;
beforeAll(async () => {
  server = await startMessagesServer({ firstTextMs: FIRST_TEXT_MS, tokenMs: TOKEN_MS, tokens: TOKENS });
});
afterAll(() => server.close());

describe('api: messages timing', () => {
  it('stamps TTFT at the first text_delta, within a millisecond of the server writing it', async () => {
    const profile = resolveProfileText(
      `name: m
scenarios:
  - name: s
    api: messages
    models: [${MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: 10
    prompt: { input_tokens: 32, output_tokens: ${TOKENS} }
`,
      'm.yaml',
    );
    const seen = await runRecording(profile, server.url);
    expect(seen).toHaveLength(10);
    const lags: number[] = [];
    const itlLags: number[] = [];
    const startFirstUs: number[] = [];
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      const served = servedFor(server.served, record);
      const { arrivedUs, textWrittenUs } = served;
      // message_start came first; the first token not before FIRST_TEXT_MS, on both sides.
      expect(record.firstChunkUs).toBeLessThan(record.firstTokenUs);
      startFirstUs.push(record.firstTokenUs - record.firstChunkUs);
      expect(textWrittenUs[0]! - arrivedUs).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
      expect(values.ttft_us).toBe(record.firstTokenUs - record.latencyStartUs);
      expect(record.firstOutputUs).toBe(record.firstTokenUs);
      expect(textWrittenUs).toHaveLength(TOKENS);
      expect(record.tokenChunkTimesUs).toHaveLength(TOKENS);
      textWrittenUs.forEach((writtenUs, t) => {
        const lag = (record.tokenChunkTimesUs[t] as number) - writtenUs;
        // One clock in one process: the client cannot see an event before it was written.
        expect(lag).toBeGreaterThanOrEqual(0);
        (t === 0 ? lags : itlLags).push(lag);
      });
    }
    // message_start at once, well before the first token (the median of ten: a process that stalls right after
    // a request arrived reads both close together, as completions-run saw once on a fresh clone).
    expect(median(startFirstUs)).toBeGreaterThan(30_000);
    // Within a millisecond (the median of ten: a loaded machine may deschedule the process once or twice).
    expect(median(lags)).toBeLessThanOrEqual(1_000);
    expect(median(itlLags)).toBeLessThanOrEqual(1_000);
  });
});
