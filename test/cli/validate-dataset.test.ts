/**
 * `inferbench validate` of a dataset profile: the plan line of prompt.dataset and what each dataset read,
 * kept and dropped by which rule, in text and in --json. Nothing is sent.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = resolve(ROOT, 'profiles/datasets/sharegpt-sample.json');

describe('inferbench validate: datasets', () => {
  it('prints the dataset options and the counts of profiles/dataset-sharegpt.yaml', async () => {
    const result = await runCliInProcess(['validate', 'profiles/dataset-sharegpt.yaml'], { cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `prompt     dataset ${SAMPLE} (format auto, field "prompt"), input tokens 4..40, output tokens from the dataset, answer tokens 8..150, sample without_replacement\n`,
    );
    expect(result.stdout).toContain(
      `dataset ${SAMPLE}: sharegpt, 40 read, 35 kept (dropped: 1 with no user turn, 2 by min_input_tokens (< 4), 1 by max_input_tokens (> 40), 1 by min_output_tokens (< 8)), sample without_replacement\n`,
    );
    expect(result.stdout).toContain(
      `dataset ${SAMPLE}: sharegpt, 40 read, 39 kept (dropped: 1 with no user turn), sample with_replacement\n`,
    );
  });

  it("--json carries the counts with each group's first request", async () => {
    const result = await runCliInProcess(['validate', 'profiles/dataset-sharegpt.yaml', '--json'], { cwd: ROOT });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { first_requests: { dataset?: Record<string, unknown> }[] };
    expect(out.first_requests[0]!.dataset).toMatchObject({
      path: SAMPLE,
      format: 'sharegpt',
      read: 40,
      kept: 35,
      limited: 0,
      filtered: {
        no_user_turn: 1,
        no_answer: 0,
        min_input_tokens: 2,
        max_input_tokens: 1,
        min_output_tokens: 1,
        max_output_tokens: 0,
      },
    });
  });

  it('exits 2 naming the scenario when without_replacement cannot serve requests', async () => {
    const result = await runCliInProcess(
      ['validate', 'profiles/dataset-sharegpt.yaml', '--set', 'scenarios[0].requests=36'],
      { cwd: ROOT },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `scenario first-turns: 36 requests with prompt.dataset.sample: without_replacement, but dataset ${SAMPLE} has only 35 entries left`,
    );
  });
});
