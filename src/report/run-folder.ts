/**
 * The files of a run's folder, behind one registry of writers (a kind plus a factory, STYLE 6): what
 * `run` writes at the end and `report` rebuilds. Results come first and in order (summary.json, then the
 * CSV files), so they are on disk before anything that could still fail; the HTML report is last and
 * optional: its failure is a problem to report, never a lost result. requests.csv is not here: it is
 * streamed while the run goes (requests-csv.ts).
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunSummary, TimeSeriesPoint } from '../metrics/run-summary.js';
import { writeHtmlReport } from './html/write-html-report.js';
import { writeSummaryCsv } from './summary-csv.js';
import { writeSummaryJson } from './summary-json.js';
import { writeTimeSeriesCsv } from './timeseries-csv.js';
import { writeBreakdownsCsv } from './breakdowns-csv.js';

export type RunFileKind = 'summary_json' | 'summary_csv' | 'timeseries_csv' | 'breakdowns_csv' | 'report_html';

/** What the writers are given: a run's results. */
export interface RunResults {
  readonly summary: RunSummary;
  readonly timeSeries: readonly TimeSeriesPoint[];
}

interface RunFileWriter {
  /** Writes the file into `dir`; returns its path, or null when the run has nothing for it (breakdowns.csv). */
  readonly write: (dir: string, results: RunResults) => Promise<string | null>;
  /** A failure of an essential file ends the run with an error; of the others it is a reported problem. */
  readonly essential: boolean;
}

export const RUN_FILE_WRITERS = {
  summary_json: { write: (dir, results) => writeSummaryJson(dir, results.summary), essential: true },
  summary_csv: { write: (dir, results) => writeSummaryCsv(dir, results.summary.groups), essential: true },
  timeseries_csv: { write: (dir, results) => writeTimeSeriesCsv(dir, results.timeSeries), essential: true },
  breakdowns_csv: { write: (dir, results) => writeBreakdownsCsv(dir, results.summary.groups), essential: true },
  report_html: { write: (dir, results) => writeHtmlReport(dir, results.summary, results.timeSeries), essential: false },
} as const satisfies Record<RunFileKind, RunFileWriter>;

/** The order files are written in: the results first, the HTML report last. */
export const RUN_FILE_ORDER: readonly RunFileKind[] = [
  'summary_json',
  'summary_csv',
  'timeseries_csv',
  'breakdowns_csv',
  'report_html',
];

export interface WrittenFiles {
  /** Path of each file written. */
  readonly paths: Partial<Record<RunFileKind, string>>;
  /** Non-essential files that could not be written, as sentences. */
  readonly problems: string[];
}

/** Writes `kinds` (default: all, in RUN_FILE_ORDER) into `dir`; an essential file's failure throws. */
export async function writeRunFiles(
  dir: string,
  results: RunResults,
  kinds: readonly RunFileKind[] = RUN_FILE_ORDER,
): Promise<WrittenFiles> {
  const paths: Partial<Record<RunFileKind, string>> = {};
  const problems: string[] = [];
  for (const kind of kinds) {
    const writer: RunFileWriter = RUN_FILE_WRITERS[kind];
    try {
      const path = await writer.write(dir, results);
      if (path !== null) paths[kind] = path;
    } catch (error) {
      if (writer.essential) throw error;
      problems.push(
        `${kind.replace('_', '.')} could not be written: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { paths, problems };
}

/** `--out DIR` as given, or reports/<run-id> (reports/<run-id>-2, ... when two runs start in the same second); created. */
export async function createRunFolder(reportsDir: string, outDir: string | null, runId: string): Promise<string> {
  if (outDir) {
    const dir = resolve(outDir);
    await mkdir(dir, { recursive: true });
    return dir;
  }
  const parent = resolve(reportsDir);
  await mkdir(parent, { recursive: true });
  for (let n = 1; ; n++) {
    const dir = join(parent, n === 1 ? runId : `${runId}-${n}`);
    try {
      await mkdir(dir, { recursive: false });
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
