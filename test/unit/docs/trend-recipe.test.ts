/**
 * docs/trend.md's CI recipe keeps the runs that matter most: the runs that failed a threshold (exit 99)
 * or were not valid evidence (exit 5) fail their job, so the upload step must run after a failed step
 * and the download loop must not keep only successful workflow runs. Read from the page's own code blocks
 * (a real Markdown parser and YAML parser), so the recipe a reader copies is the one tested.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const fences = new MarkdownIt()
  .parse(readFileSync(join(ROOT, 'docs', 'trend.md'), 'utf8'), {})
  .filter((token) => token.type === 'fence');

interface Step {
  readonly uses?: string;
  readonly if?: string;
}

describe('docs/trend.md CI recipe', () => {
  it('uploads the run folder also when the run failed a threshold (a failed step before it)', () => {
    const workflow = fences.find((f) => f.info.trim() === 'yaml' && f.content.includes('upload-artifact'));
    expect(workflow).toBeDefined();
    const jobs = (parse(workflow!.content) as { jobs: Record<string, { steps: Step[] }> }).jobs;
    const upload = Object.values(jobs)
      .flatMap((job) => job.steps)
      .find((step) => step.uses?.startsWith('actions/upload-artifact'));
    // Without an `if:` GitHub runs a step only when every step before it succeeded.
    expect(upload?.if).toMatch(/^\$\{\{\s*(!cancelled\(\)|always\(\))\s*\}\}$/);
  });

  it('downloads the artifacts of failed workflow runs too', () => {
    const loop = fences.find((f) => f.content.includes('gh run download'));
    expect(loop).toBeDefined();
    expect(loop!.content).not.toMatch(/--status\s+success/);
  });
});
