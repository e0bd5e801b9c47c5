/**
 * A capacity step whose cap leaves its tests no block (the untested start, default step warmup included,
 * and the last block take the whole step) is a profile error, exit 2 naming max_step_duration and the
 * length that would do, before any step is sent. Before: the search found no load at which its objective
 * could decide and raised its start to max_load (4,100 req/s), flooding the target for nothing.
 */
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-capacity-step-too-short-');
const emulators = useInProcessEmulators();

describe('capacity with a step too short to test anything', () => {
  it('exits 2 naming max_step_duration and what it must be, with nothing sent', async () => {
    // No step_warmup: the default (5 s, at most a quarter step: 0.5 s) is one more untested block.
    const profile = folder.writeProfile(
      'short-steps',
      `name: short-steps
scenarios:
  - name: chat
    models: [small-fast-8b]
    load: { mode: rate, rate: 4 }
    duration: 2s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity: { slo: { ttft_ms.p50: 2000ms }, start: 8, max_steps: 2, max_step_duration: 2s }
`,
    );
    const target = await emulators.start();
    const result = await runCliInProcess(['capacity', profile, '--out', `${folder.dir}/out`], {
      cwd: folder.dir,
      target,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'capacity.max_step_duration 2 s leaves no time for the tests of chat/small-fast-8b/-',
    );
    expect(result.stderr).toContain('make capacity.max_step_duration at least 4 s');
    expect(result.stderr).not.toContain('step 1');
  });
});
