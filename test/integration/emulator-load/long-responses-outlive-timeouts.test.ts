/**
 * The headers and request timeouts limit how long a client takes to SEND a request, never how long the
 * emulator takes to answer: a stream that lasts six times the request timeout ends normally, and a
 * keep-alive connection is not cut while a response is still being written.
 */
import { expect, it } from 'vitest';
import { parseCatalogConfig } from '../../../src/emulator/catalog/config-file.js';
import { createEmulator } from '../../../src/emulator/emulator.js';

it('a 3 s stream under a 500 ms request timeout (and 300 ms headers, 500 ms keep-alive) ends with its finish_reason', async () => {
  const catalog = parseCatalogConfig(
    'models:\n  - id: slow\n    based_on: small-fast-8b\n    capacity: { decode_tokens_per_s: 20, jitter: 0 }\n',
    'slow.yaml',
    'local',
  );
  const emulator = await createEmulator({
    catalog,
    timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 500, keepAliveTimeoutMs: 500 },
  });
  try {
    const started = performance.now();
    const res = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'slow',
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 60,
        stream: true,
      }),
    });
    const text = await res.text();
    expect(performance.now() - started).toBeGreaterThan(2_500);
    expect(text).toContain('"finish_reason":"length"');
    expect(text.match(/"content":/g)?.length).toBeGreaterThanOrEqual(59);
  } finally {
    await emulator.close();
  }
});
