/**
 * `inferbench serve --keep-alive-timeout/--headers-timeout/--request-timeout` in process: the values
 * reach the server (a silent connection gets the 408 after the headers timeout, the keep-alive hint
 * names the keep-alive timeout), and bad values are usage errors (exit 2) naming the flag.
 * slow-clients.test.ts runs the built binary with the same flags.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStream } from '../../helpers/cli.js';
import { runCli } from '../../../src/cli/run-cli.js';
import type { CliContext } from '../../../src/cli/context.js';
import { exchangeRaw, firstResponse } from './raw-socket.js';

function context(interrupt = new AbortController().signal): {
  ctx: CliContext;
  stdout: MemoryStream;
  stderr: MemoryStream;
} {
  const stdout = new MemoryStream();
  const stderr = new MemoryStream();
  return { ctx: { stdout, stderr, env: {}, cwd: process.cwd(), interrupt, exitCode: 0 }, stdout, stderr };
}

async function firstLine(stream: MemoryStream): Promise<string> {
  while (!stream.text.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
  return stream.text.split('\n')[0]!;
}

describe('serve timeout flags', () => {
  it('--headers-timeout 500ms closes a silent connection with a 408; --keep-alive-timeout 7s is announced', async () => {
    const stop = new AbortController();
    const { ctx, stdout } = context(stop.signal);
    const args = [
      'serve',
      '--port',
      '0',
      '--keep-alive-timeout',
      '7s',
      '--headers-timeout',
      '500ms',
      '--request-timeout',
      '1s',
    ];
    const done = runCli(args, ctx);
    try {
      const url = await firstLine(stdout);
      const silent = await exchangeRaw(url, '');
      expect(firstResponse(silent.text).status).toBe(408);
      expect(silent.openMs).toBeGreaterThanOrEqual(450);
      expect(silent.openMs).toBeLessThan(3_500);
      const answered = await exchangeRaw(
        url,
        'GET /v1/tcp_warming HTTP/1.1\r\nHost: e\r\nConnection: keep-alive\r\n\r\n',
        1_000,
      );
      expect(firstResponse(answered.text).head).toMatch(/\r\nKeep-Alive: timeout=7(\r\n|$)/i);
    } finally {
      stop.abort();
    }
    expect(await done).toBe(0);
  });

  for (const [args, message] of [
    [['--headers-timeout', 'soon'], /--headers-timeout must be a duration such as 30s, 500ms or 0, got soon/],
    [['--keep-alive-timeout=-5s'], /--keep-alive-timeout must be a duration/],
    [
      ['--headers-timeout', '10s', '--request-timeout', '5s'],
      /headers timeout \(10000 ms\) must be at most the request timeout \(5000 ms\)/,
    ],
  ] as const) {
    it(`${args.join(' ')}: exit 2 naming the flag`, async () => {
      const { ctx, stderr } = context();
      expect(await runCli(['serve', '--port', '0', ...args], ctx)).toBe(2);
      expect(stderr.text).toMatch(message);
    });
  }
});
