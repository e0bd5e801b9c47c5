/**
 * CI outputs of `run` and `compare`: `--junit FILE`, `--markdown FILE` (folders made as needed) and the
 * markdown appended to $GITHUB_STEP_SUMMARY when GitHub Actions sets it. Relative paths are the caller's cwd.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CliContext } from './context.js';

export interface CiOutputs {
  readonly junit?: string | undefined;
  readonly markdown?: string | undefined;
}

/** Writes what was asked; the formatters run only for the files that are written. */
export async function writeCiOutputs(
  asked: CiOutputs,
  format: { readonly junit: () => string; readonly markdown: () => string },
  ctx: CliContext,
): Promise<void> {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  if (asked.junit) await writeFileIn(abs(asked.junit), format.junit());
  const stepSummary = ctx.env.GITHUB_STEP_SUMMARY;
  if (!asked.markdown && !stepSummary) return;
  const markdown = format.markdown();
  if (asked.markdown) await writeFileIn(abs(asked.markdown), markdown);
  if (stepSummary) await appendFile(abs(stepSummary), `${markdown}\n`, 'utf8');
}

async function writeFileIn(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, 'utf8');
}
