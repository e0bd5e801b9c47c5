/** Writes report.html, the one self-contained page of a run, into its run directory. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary, TimeSeriesPoint } from '../../metrics/run-summary.js';
import { buildReportDocument } from './build-report-document.js';
import { renderHtmlPage } from './page-shell.js';

/** The report of a run as an HTML string (no I/O besides reading uPlot's files once). */
export function renderHtmlReport(summary: RunSummary, timeSeries: readonly TimeSeriesPoint[]): string {
  return renderHtmlPage(buildReportDocument(summary, timeSeries));
}

/** Writes `<runDir>/report.html` and returns its path. */
export async function writeHtmlReport(
  runDir: string,
  summary: RunSummary,
  timeSeries: readonly TimeSeriesPoint[],
): Promise<string> {
  const path = join(runDir, 'report.html');
  await writeFile(path, renderHtmlReport(summary, timeSeries), 'utf8');
  return path;
}
