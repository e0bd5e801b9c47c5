/**
 * JUnit XML of a run, for CI test dashboards (`run --junit FILE`): one testsuite per group, one testcase per
 * threshold evaluated on it (a <failure> when it failed), one testcase saying whether the group had any ok
 * request, and, when the run was stopped early (not by stop_when_decided: that run is complete), a suite
 * "run" whose testcase fails with the reason; with `--repeat N` the same for every repeat in one document.
 * Strings are escaped as in the comparison's JUnit (report/junit.ts).
 */
import type { GroupSummary, RunStopped, RunSummary, ThresholdResult } from '../metrics/run-summary.js';
import { escapeXml } from './junit.js';

interface Case {
  readonly name: string;
  readonly failure: string | null;
  readonly details: string;
}

/** The run as a JUnit XML document. */
export function formatRunJunit(summary: RunSummary): string {
  return junitDocument(`inferbench run ${summary.profile.name}`, runSuites(summary), [['run_id', summary.run_id]]);
}

/**
 * `run --repeat N --junit FILE`: the N runs in one document. The suites are the runs' (a group, "all
 * groups", "run"), each testcase once per repeat, named `repeat <i>: <name>`; a repeat that wrote no
 * results fails its own testcase.
 */
export function formatRepeatJunit(
  profile: string,
  repeats: readonly { readonly index: number; readonly summary: RunSummary | null }[],
): string {
  const suites = new Map<string, Case[]>();
  const add = (suite: string, cases: readonly Case[]): void => {
    suites.set(suite, [...(suites.get(suite) ?? []), ...cases]);
  };
  for (const { index, summary } of repeats) {
    const prefix = (c: Case): Case => ({ ...c, name: `repeat ${index}: ${c.name}` });
    if (summary === null)
      add('run', [prefix({ name: 'wrote results', failure: 'the run wrote no summary.json', details: '' })]);
    else for (const [suite, cases] of runSuites(summary)) add(suite, cases.map(prefix));
  }
  const runIds = repeats.flatMap(({ index, summary }): [string, string][] =>
    summary === null ? [] : [[`repeat_${index}_run_id`, summary.run_id]],
  );
  return junitDocument(`inferbench run ${profile} x ${repeats.length}`, suites, runIds);
}

/** A run's testcases by suite: per group whether it had an ok request and its thresholds; a stop. */
function runSuites(summary: RunSummary): Map<string, Case[]> {
  const suites = new Map<string, Case[]>();
  for (const group of summary.groups) suites.set(group.key, [requestsCase(group)]);
  for (const result of summary.thresholds) {
    const suite = result.group === '*' ? 'all groups' : result.group;
    const cases = suites.get(suite) ?? [];
    cases.push(thresholdCase(result));
    suites.set(suite, cases);
  }
  // A run stopped because every threshold was decided did what it was asked: its thresholds say the rest.
  if (summary.stopped !== null && summary.stopped !== undefined && summary.stopped.reason !== 'decided')
    suites.set('run', [{ name: 'ran to its end', failure: stoppedText(summary.stopped), details: '' }]);
  return suites;
}

function junitDocument(
  name: string,
  suites: ReadonlyMap<string, readonly Case[]>,
  properties: readonly (readonly [string, string])[],
): string {
  const x = escapeXml;
  const all = [...suites.values()].flat();
  const failures = all.filter((c) => c.failure !== null).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(name)}" tests="${all.length}" failures="${failures}" errors="0">`,
  ];
  for (const [suite, cases] of suites) {
    const failed = cases.filter((c) => c.failure !== null).length;
    lines.push(`  <testsuite name="${x(suite)}" tests="${cases.length}" failures="${failed}" errors="0">`);
    lines.push('    <properties>');
    for (const [key, value] of properties) lines.push(`      <property name="${x(key)}" value="${x(value)}"/>`);
    lines.push('    </properties>');
    for (const c of cases) {
      lines.push(`    <testcase classname="${x(`inferbench.run.${suite}`)}" name="${x(c.name)}" time="0">`);
      if (c.failure !== null) lines.push(`      <failure message="${x(c.failure)}">${x(c.details)}</failure>`);
      else lines.push(`      <system-out>${x(c.details)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function thresholdCase(result: ThresholdResult): Case {
  const actual = `actual ${result.actual ?? 'none'}`;
  return {
    name: result.expression,
    failure: result.passed ? null : `threshold failed: ${result.expression} (${actual})`,
    details: actual,
  };
}

function requestsCase(group: GroupSummary): Case {
  const { ok, failed, dropped } = group.requests;
  const details = `${ok} ok, ${failed} failed, ${dropped} dropped, error rate ${group.error_rate}`;
  return { name: 'requests answered', failure: ok > 0 ? null : `no request succeeded: ${details}`, details };
}

function stoppedText(stopped: RunStopped): string {
  const { reason, at_s } = stopped;
  return `stopped early at ${at_s} s: ${reason}`;
}
