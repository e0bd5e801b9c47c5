/**
 * The live views' flags of `inferbench run` read as a user means them or refused with a clear usage
 * error (exit 2) before anything starts: `--dashboard` written before the profile (which it takes for
 * its port), a port typo behind an unreachable target, `--repeat` with a port of 0, and `--repeat` with a
 * fixed /metrics port served by each run in turn.
 */
import { freePort } from '../helpers/free-port.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-live-flags-');
const emulators = useInProcessEmulators();

const SHORT = `
name: live-flags
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 3
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 16 }
live: { metrics_linger: 0 }
`;

describe('inferbench run: the live views flags', () => {
  it('says that --dashboard before the profile took it for the port', async () => {
    const profile = folder.writeProfile('short', SHORT);
    const result = await runCliInProcess(['run', '--dashboard', profile], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--dashboard took ${JSON.stringify(profile)} for its port: run has no profile`);
    expect(result.stderr).toContain(`hint: put the profile first (inferbench run ${profile} --dashboard)`);
    expect(result.stderr).not.toMatch(/Not enough non-option arguments/);
    // A run without a profile and no --dashboard keeps yargs' own message.
    const bare = await runCliInProcess(['run', '--quiet'], { cwd: folder.dir });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/Not enough non-option arguments/);
  });

  it('refuses a port typo before the target is asked anything (not the unreachable target, exit 3)', async () => {
    // models: all asks the target for its catalog when the session opens.
    const profile = folder.writeProfile('all-models', SHORT.replace('[small-fast-8b]', 'all'));
    const closed = await freePort();
    for (const flag of ['--dashboard', '--metrics-port']) {
      const result = await runCliInProcess(
        ['run', profile, flag, 'abc', '--base-url', `http://127.0.0.1:${closed}`, '--quiet'],
        { cwd: folder.dir },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} "abc" is not a port number`);
      expect(result.stderr).toContain(flag === '--dashboard' ? 'e.g. --dashboard 5665' : 'e.g. --metrics-port 9464');
    }
  });

  it('refuses --repeat with a port of 0, which each run would open elsewhere', async () => {
    const profile = folder.writeProfile('short', SHORT);
    for (const flag of ['--dashboard', '--metrics-port']) {
      const out = join(folder.dir, `any-port${flag}`);
      const result = await runCliInProcess(['run', profile, '--repeat', '2', flag, '0', '--out', out, '--quiet'], {
        cwd: folder.dir,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} 0 with --repeat 2: each run would listen on another port`);
      expect(result.stderr).not.toMatch(/repeat 1 of 2/);
    }
    const inProfile = folder.writeProfile('any-port', SHORT.replace('live: {', 'live: { metrics_port: 0,'));
    const result = await runCliInProcess(['run', inProfile, '--repeat', '2', '--out', join(folder.dir, 'any')], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('live.metrics_port 0 with --repeat 2: each run would listen on another port');
    expect(result.stderr).not.toMatch(/repeat 1 of 2/);
  });

  it('serves a fixed /metrics port in each run of --repeat in turn', async () => {
    const profile = folder.writeProfile('short', SHORT);
    const port = await freePort();
    const result = await runCliInProcess(
      ['run', profile, '--repeat', '2', '--metrics-port', String(port), '--out', join(folder.dir, 'repeat')],
      { cwd: folder.dir, target: await emulators.start() },
    );
    expect(result.stderr).not.toMatch(/EADDRINUSE/);
    expect(result.code).toBe(0);
    const served = result.stderr.match(new RegExp(`metrics: http://127\\.0\\.0\\.1:${port}/metrics`, 'g'));
    expect(served).toHaveLength(2);
    // Closed after the last run.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  }, 30_000);
});
