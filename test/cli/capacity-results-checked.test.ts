/**
 * `capacity --reevaluate DIR` and `--confirm DIR` read what an earlier search wrote, checked whole against
 * the result schemas: an edited or damaged capacity-steps.json or summary.json is exit 2 with a message
 * naming the file and the place of the wrong value, never an internal error (exit 1) or a stack trace.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-capacity-checked-');

function writeFolder(name: string, file: string, value: unknown): string {
  const dir = join(folder.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), JSON.stringify(value));
  return dir;
}

describe('capacity results read back', () => {
  it('--reevaluate names the wrong value of capacity-steps.json', async () => {
    const dir = writeFolder('steps', 'capacity-steps.json', {
      schema_version: 1,
      run_id: 'r',
      objectives: [],
      settings: {
        resolution: 0.05,
        max_steps: 12,
        step_duration_ms: 15_000,
        block_ms: 1000,
        alpha: 0.05,
        beta: 0.1,
        indifference: 0.5,
        min_capacity: null,
        seed: 1,
      },
      groups: [
        {
          group: 'g',
          mode: 'rate',
          unit: 'req/s',
          steps: [{ step: 1, load: 'fast', outcome: 'pass', reason: 'r', overload: null, blocks: [] }],
        },
      ],
    });
    const result = await runCliInProcess(['capacity', '--reevaluate', dir], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(join(dir, 'capacity-steps.json'));
    expect(result.stderr).toContain('groups[0].steps[0].load');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('--confirm names the wrong value of summary.json', async () => {
    const dir = writeFolder('summary', 'summary.json', { schema_version: 1, run_id: 7 });
    const profile = folder.writeProfile(
      'p',
      'name: p\nscenarios:\n  - { name: s, requests: 1 }\ncapacity: { slo: { ttft_ms.p90: 500ms } }\n',
    );
    const result = await runCliInProcess(['capacity', profile, '--confirm', dir, '--base-url', 'http://127.0.0.1:9'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(join(dir, 'summary.json'));
    expect(result.stderr).toContain('run_id');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
