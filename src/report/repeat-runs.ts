/**
 * Drives `run --repeat N`: runs the same profile N times into <out>/repeat-<i>/ through a callback (the
 * CLI's own single-run path, so every run is a normal run with all its files), then reads the N
 * summaries back and writes the aggregate. Stops early on Ctrl-C or a run that could not be done.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../metrics/run-summary.js';
import { loadRun } from './compare/load-run.js';
import { aggregateRepeats, writeRepeatSummary } from './repeat-summary.js';
import type { RepeatSummary } from './repeat-summary.js';

/** Exit codes a single run reports (the subset of cli/exit-codes.ts that matters here). */
const INTERRUPTED = 130;
const RUN_FAILED = 3;

export interface RepeatOutcome {
  readonly summary: RepeatSummary;
  readonly path: string;
  /** Exit code of the whole: interrupted > run failed > threshold failed > ok. */
  readonly exitCode: number;
  /** Every repeat that was started, 1-based, with its summary (null: it wrote none). */
  readonly repeats: readonly { readonly index: number; readonly summary: RunSummary | null }[];
}

/**
 * Runs `runOnce(dir, index)` for i = 1..n into `<outDir>/repeat-<i>` and aggregates the runs that wrote
 * a summary. `runOnce` returns the run's exit code.
 */
export async function runRepeated(
  n: number,
  outDir: string,
  runOnce: (runDir: string, index: number) => Promise<number>,
): Promise<RepeatOutcome> {
  await mkdir(outDir, { recursive: true });
  const codes: number[] = [];
  const runs: { dir: string; summary: RunSummary }[] = [];
  const repeats: { index: number; summary: RunSummary | null }[] = [];
  for (let i = 1; i <= n; i++) {
    const dir = join(outDir, `repeat-${i}`);
    const code = await runOnce(dir, i);
    codes.push(code);
    let summary: RunSummary | null = null;
    try {
      summary = (await loadRun(dir)).summary;
      runs.push({ dir, summary });
    } catch {
      // A run that wrote no summary (it could not start) is left out of the aggregate; its code says why.
    }
    repeats.push({ index: i, summary });
    if (code === INTERRUPTED || code === RUN_FAILED) break;
  }
  const summary = aggregateRepeats(runs);
  const path = await writeRepeatSummary(outDir, summary);
  const exitCode = codes.includes(INTERRUPTED)
    ? INTERRUPTED
    : codes.includes(RUN_FAILED)
      ? RUN_FAILED
      : Math.max(0, ...codes);
  return { summary, path, exitCode, repeats };
}
