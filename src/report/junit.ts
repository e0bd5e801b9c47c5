/**
 * JUnit XML of a comparison, for CI test dashboards: one testsuite per group, one testcase per group x
 * metric, a <failure> for each regression. Both targets are named: in the root's name when they differ
 * (two deployments compared) and as properties of every suite. Every string is XML-escaped and characters XML 1.0 forbids
 * are dropped, so hostile model names or messages cannot break the file.
 */
import type { CompareResult } from './compare/compare-runs.js';
import { formatChange, formatPValue, formatValue, groupLabel } from './compare/format-values.js';
import { targetLabel } from './compare/target-label.js';

/** Escapes text for XML element content and attribute values. */
export function escapeXml(text: string): string {
  return (
    text
      // Characters XML 1.0 does not allow: control characters but tab, LF and CR; lone surrogates; U+FFFE/F.
      .replace(/[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : ''))
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** The comparison as a JUnit XML document. */
export function formatCompareJunit(result: CompareResult): string {
  const x = escapeXml;
  const byGroup = new Map<string, CompareResult['comparisons'][number][]>();
  for (const c of result.comparisons) {
    const label = groupLabel(c);
    const list = byGroup.get(label) ?? [];
    list.push(c);
    byGroup.set(label, list);
  }
  const baselineTarget = targetLabel(result.baseline.target);
  const candidateTarget = targetLabel(result.candidate.target);
  const name = result.sameTarget ? 'inferbench compare' : `inferbench compare: ${baselineTarget} vs ${candidateTarget}`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(name)}" tests="${result.comparisons.length}" failures="${result.regressions}" errors="0">`,
  ];
  for (const [group, cases] of byGroup) {
    const failures = cases.filter((c) => c.verdict === 'regression').length;
    lines.push(
      `  <testsuite name="${x(group)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${cases.filter((c) => c.verdict === 'no_data' || c.verdict === 'not_called').length}">`,
    );
    lines.push('    <properties>');
    lines.push(`      <property name="baseline_run" value="${x(result.baseline.runId)}"/>`);
    lines.push(`      <property name="candidate_run" value="${x(result.candidate.runId)}"/>`);
    lines.push(`      <property name="baseline_target" value="${x(baselineTarget)}"/>`);
    lines.push(`      <property name="candidate_target" value="${x(candidateTarget)}"/>`);
    if (cases[0] && cases[0].group !== cases[0].candidateGroup) {
      lines.push(`      <property name="baseline_group" value="${x(cases[0].group)}"/>`);
      lines.push(`      <property name="candidate_group" value="${x(cases[0].candidateGroup)}"/>`);
    }
    lines.push(`      <property name="alpha" value="${result.alpha}"/>`);
    lines.push('    </properties>');
    for (const c of cases) {
      const open = `    <testcase classname="${x(`inferbench.compare.${group}`)}" name="${x(c.metricId)}" time="0">`;
      const details = `baseline ${formatValue(c.baseline, c.unit)}, candidate ${formatValue(c.candidate, c.unit)}, change ${formatChange(c)}, p ${formatPValue(c.pValue)} (${c.test}), adjusted p ${formatPValue(c.pAdjusted)}, tolerance ${c.tolerance}`;
      if (c.verdict === 'regression') {
        lines.push(
          open,
          `      <failure type="regression" message="${x(c.reason)}">${x(details)}</failure>`,
          '    </testcase>',
        );
      } else if (c.verdict === 'no_data' || c.verdict === 'not_called') {
        lines.push(open, `      <skipped message="${x(c.reason)}"/>`, '    </testcase>');
      } else {
        lines.push(open, `      <system-out>${x(`${c.reason}; ${details}`)}</system-out>`, '    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
