/**
 * requests.csv opens its `labels` and `checks_failed` columns when only a mix class asks for them (its own
 * prompt.prefixes, its own tools): review finding, the columns read only the scenario's fields. Against
 * the emulator, in this process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../../src/report/compare/parse-csv.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-mix-columns-');
const emulators = useInProcessEmulators();

describe('requests.csv columns of a mix', () => {
  it('has labels and checks_failed when only classes set prefixes and tools', async () => {
    const profile = folder.writeProfile(
      'mix-columns',
      `name: mix-columns
scenarios:
  - name: m
    load: { mode: concurrency, concurrency: 2 }
    requests: 12
    prompt: { input_tokens: 16, output_tokens: 8 }
    mix:
      - { name: cached, weight: 1, prompt: { prefixes: { groups: 2, tokens: 32 } } }
      - name: tooled
        weight: 1
        request:
          tool_choice: required
          tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
`,
    );
    const out = join(folder.dir, 'run');
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const { columns, records } = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8'));
    expect(columns).toEqual(expect.arrayContaining(['labels', 'checks_failed']));
    expect(records.some((row) => /prefix/.test(row['labels'] ?? ''))).toBe(true);
  }, 60_000);
});
