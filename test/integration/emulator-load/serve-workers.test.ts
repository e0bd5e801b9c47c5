/**
 * `inferbench serve --workers 2` (the built CLI, so build first): one URL, two worker processes behind
 * it, each a whole emulator with its own rate limits, and a clean stop on SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorProcess, type EmulatorProcess } from '../../helpers/emulator-process.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-workers-'));
const config = join(dir, 'emulator.yaml');
let emulator: EmulatorProcess;

beforeAll(async () => {
  writeFileSync(
    config,
    'models:\n  - id: two-a-minute\n    based_on: small-fast-8b\n    limits: { requests_per_minute: 2, tokens_per_minute: null }\n',
  );
  emulator = await startEmulatorProcess(['--workers', '2', '--config', config]);
});

afterAll(async () => {
  await emulator?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One request on its own connection (no keep-alive), so the cluster can hand it to either worker. */
function post(body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      `${emulator.url}/v1/chat/completions`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: 'Bearer w',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('serve --workers', () => {
  it('prints one URL and serves streams from it', async () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await post({
      model: 'small-fast-8b',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 5,
      stream: true,
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"finish_reason"');
    // The startup lines appear once, not once per worker.
    expect(emulator.stderr().match(/^models:/gm)).toHaveLength(1);
  });

  it('spreads connections over both workers, each with its own rate limits', async () => {
    const body = { model: 'two-a-minute', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 2 };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(body)).status);
    // One process would allow 2 a minute; two workers allow 2 each.
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    const code = await emulator.stop();
    expect(code).toBe(0);
    expect(emulator.child.exitCode).toBe(0);
  });

  it('refuses a bad worker count', async () => {
    await expect(startEmulatorProcess(['--workers', '0'], 15_000)).rejects.toThrow(/--workers must be an integer/);
  });
});
