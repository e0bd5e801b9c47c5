/**
 * A scenario `mix` with `reasoning_efforts` against the emulator (in this process): summary.json has one group per
 * class and effort (with `class` and `reasoning_effort`), each class sends its own prompts, and the
 * emulator's reasoning model thinks more at a higher effort; the table shows ttfo and reasoning tokens.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-mix-emulator-');
const emulators = useInProcessEmulators();

describe('a mix and reasoning efforts against the emulator', () => {
  it('makes one group per class, and reasoning tokens that grow with the effort', async () => {
    const profile = folder.writeProfile(
      'emulator-mix',
      `name: emulator-mix
scenarios:
  - name: think
    models: [reasoner-120b]
    reasoning_efforts: [low, medium]
    load: { mode: concurrency, concurrency: 4 }
    requests: 4
    request: { max_completion_tokens: 400 }
    prompt: { input_tokens: 64 }
    mix:
      - { name: chat, weight: 3 }
      - { name: doc, weight: 1, prompt: { input_tokens: 1500 } }
`,
    );
    const out = join(folder.dir, 'emulator-mix');
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const groups = readSummary(out).groups;
    expect(groups.map((g) => g.key)).toEqual([
      'think.chat.low/reasoner-120b/-',
      'think.doc.low/reasoner-120b/-',
      'think.chat.medium/reasoner-120b/-',
      'think.doc.medium/reasoner-120b/-',
    ]);
    expect(groups.map((g) => g.class)).toEqual(['chat', 'doc', 'chat', 'doc']);
    for (const effort of ['low', 'medium'])
      expect(groups.filter((g) => g.reasoning_effort === effort).reduce((n, g) => n + g.requests.ok, 0)).toBe(4);
    const reasoning = (effort: string) =>
      groups.find((g) => g.key === `think.chat.${effort}/reasoner-120b/-`)!.metrics.reasoning_tokens!.mean;
    // The emulator's reasoner thinks 64 tokens at low and 256 at medium, +-20% (uniform: every answer is in
    // these bounds, so a few answers per effort prove them as well as many).
    expect(reasoning('low')).toBeGreaterThan(40);
    expect(reasoning('low')).toBeLessThan(90);
    expect(reasoning('medium')).toBeGreaterThan(190);
    expect(reasoning('medium')).toBeLessThan(320);
    const doc = groups.find((g) => g.key === 'think.doc.low/reasoner-120b/-')!;
    expect(doc.metrics.input_tokens!.min).toBeGreaterThan(1500);
    expect(groups.find((g) => g.key === 'think.chat.low/reasoner-120b/-')!.metrics.input_tokens!.max).toBeLessThan(100);
    // The table shows ttfo and reasoning tokens for reasoning groups.
    expect(result.stdout).toMatch(/ttfo p50 +reason tok/);
  }, 60_000);
});
