/** `inferbench run --repeat N` against an emulator in this process: N run folders and repeat-summary.json. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import type { RepeatSummary } from '../../src/report/repeat-summary.js';

let dir: string;
const emulators = useInProcessEmulators();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-repeat-'));
  writeFileSync(
    join(dir, 'tiny.yaml'),
    `name: tiny
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 10
    prompt: { input_tokens: 32, output_tokens: 8 }
    seed: 1
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run --repeat', () => {
  it('writes N runs and their aggregate, and prints the table', async () => {
    const out = join(dir, 'rep');
    const r = await runCliInProcess(['run', join(dir, 'tiny.yaml'), '--repeat', '3', '--out', out], {
      cwd: dir,
      target: await emulators.start(),
    });
    expect(r.code, r.stderr).toBe(0);
    for (const i of [1, 2, 3]) expect(existsSync(join(out, `repeat-${i}`, 'summary.json'))).toBe(true);
    const agg = JSON.parse(readFileSync(join(out, 'repeat-summary.json'), 'utf8')) as RepeatSummary;
    expect(agg.runs).toHaveLength(3);
    const ttft = agg.groups[0]!.metrics['ttft_ms.p50']!;
    expect(ttft.n).toBe(3);
    expect(ttft.mean).toBeCloseTo(ttft.values.reduce((a, b) => a + b, 0) / 3, 9);
    expect(ttft.ci95![0]).toBeLessThanOrEqual(ttft.mean);
    expect(r.stdout).toMatch(/3 runs of tiny/);
    expect(r.stdout).toMatch(/s\/small-fast-8b\/-\s+ttft_ms\.p50\s+3/);
    expect(r.stderr).toMatch(/repeat 3 of 3/);
  });

  it('rejects a bad count with exit 2', async () => {
    const r = await runCliInProcess(['run', join(dir, 'tiny.yaml'), '--repeat', '0'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--repeat 0 must be a whole number/);
  });
});
