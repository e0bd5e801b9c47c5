/**
 * `inferbench serve` and `inferbench catalog`: the real binary prints its base URL alone on the first
 * stdout line and stops cleanly on SIGTERM; a bad config exits 2 naming file and line; the catalog
 * command prints each format. (Needs dist/: `npm test` builds it first.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliContext } from '../../src/cli/context.js';
import { startEmulatorProcess } from '../helpers/emulator-process.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-serve-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function context(interrupt = new AbortController().signal): {
  ctx: CliContext;
  out: () => string;
  err: () => string;
  stdout: PassThrough;
} {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  const ctx: CliContext = { stdout, stderr, env: {}, cwd: dir, interrupt, exitCode: 0 };
  return { ctx, out: () => out, err: () => err, stdout };
}

describe('serve (the binary)', () => {
  it('prints the base URL alone on the first stdout line, serves it, and stops on SIGTERM with 0', async () => {
    const emulator = await startEmulatorProcess(['--api-key', 'serve-test-key']);
    try {
      expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${emulator.url}/v1/models`, { headers: { authorization: 'Bearer serve-test-key' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      const stream = await fetch(`${emulator.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer serve-test-key', 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'small-fast-8b',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          max_completion_tokens: 5,
        }),
      });
      expect(await stream.text()).toContain('"finish_reason"');
      expect(await emulator.waitForStderr(/Ctrl-C/)).toContain('1 API key(s) configured');
      expect(emulator.stderr()).not.toContain('serve-test-key');
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });

  it('says when any key is accepted', async () => {
    const emulator = await startEmulatorProcess([]);
    try {
      expect(await emulator.waitForStderr(/any non-empty API key/)).toMatch(/any non-empty management key/);
    } finally {
      await emulator.stop();
    }
  });

  it('a bad --config exits 2 and names the file, line and field', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'models:\n  - id: x\n    capacity:\n      slots: -1\n');
    await expect(startEmulatorProcess(['--config', bad])).rejects.toThrow(
      /exited with 2[\s\S]*bad\.yaml:4: models\.0\.capacity\.slots/,
    );
  });
});

describe('serve (in process)', () => {
  it('serves a --config model and a --files directory, and returns 0 when interrupted', async () => {
    const config = join(dir, 'emu.yaml');
    writeFileSync(config, 'models:\n  - id: custom-model\n    based_on: small-fast-8b\n');
    const files = join(dir, 'files');
    rmSync(files, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(files));
    writeFileSync(join(files, 'f1.jsonl'), '{}\n');
    const stop = new AbortController();
    const { ctx, out, stdout } = context(stop.signal);
    const firstLine = new Promise<string>((resolve) => {
      stdout.on('data', () => {
        if (out().includes('\n')) resolve(out().split('\n')[0]!);
      });
    });
    const done = runCli(['serve', '--port', '0', '--config', 'emu.yaml', '--files', 'files', '--org', 'acme'], ctx);
    const url = await firstLine;
    try {
      const auth = { headers: { authorization: 'Bearer k' } };
      expect((await fetch(`${url}/v1/models/custom-model`, auth)).status).toBe(200);
      expect(await (await fetch(`${url}/v1/files/f1/content`, auth)).text()).toBe('{}\n');
      expect((await fetch(`${url}/management/v1/orgs/acme/endpoints`, auth)).status).toBe(200);
      expect((await fetch(`${url}/management/v1/orgs/local/endpoints`, auth)).status).toBe(404);
    } finally {
      stop.abort();
    }
    expect(await done).toBe(0);
  });

  it('a missing --files directory is a usage error (2)', async () => {
    const { ctx, err } = context();
    expect(await runCli(['serve', '--port', '0', '--files', 'does-not-exist'], ctx)).toBe(2);
    expect(err()).toContain('does-not-exist');
  });
});

/** What the checks below read of the printed catalog, whichever of the three formats it is in. */
interface PrintedCatalog {
  object?: string;
  data: { context_length?: number; pricing?: { input?: unknown } }[];
}

describe('catalog', () => {
  it('prints the default, router and hub formats as JSON', async () => {
    for (const [args, check] of [
      [[], (json: PrintedCatalog) => expect(json.object).toBe('list')],
      [['--format', 'router'], (json: PrintedCatalog) => expect(json.data[0]?.context_length).toBeGreaterThan(0)],
      [['--format', 'hub'], (json: PrintedCatalog) => expect(typeof json.data[0]?.pricing?.input).toBe('number')],
    ] as const) {
      const { ctx, out } = context();
      expect(await runCli(['catalog', ...args], ctx)).toBe(0);
      const json: PrintedCatalog = JSON.parse(out());
      expect(json.data.length).toBeGreaterThanOrEqual(5);
      check(json);
    }
  });

  it('reads --config and rejects an unknown format', async () => {
    const config = join(dir, 'cat.yaml');
    writeFileSync(config, 'replace_builtin: true\nmodels:\n  - id: solo\n');
    const { ctx, out } = context();
    expect(await runCli(['catalog', '--config', 'cat.yaml'], ctx)).toBe(0);
    expect(JSON.parse(out()).data.map((m: { id: string }) => m.id)).toEqual(['solo']);
    const bad = context();
    expect(await runCli(['catalog', '--format', 'xml'], bad.ctx)).toBe(2);
  });
});
