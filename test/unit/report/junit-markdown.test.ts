/** JUnit XML parses (fast-xml-parser) with one testcase per group x metric and escapes hostile strings; markdown tables escape too. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { compareRuns } from '../../../src/report/compare/compare-runs.js';
import type { CompareResult } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { escapeXml, formatCompareJunit } from '../../../src/report/junit.js';
import { escapeMarkdownCell, formatCompareMarkdown } from '../../../src/report/markdown.js';
import { HOSTILE_MODEL, makeRunDir } from '../../fixtures/make-run.js';

let root: string;
let result: CompareResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-junit-'));
  const load = async (name: string, seed: number, slowdown: number) => {
    const run = await loadRun(makeRunDir(join(root, name), { seed, slowdown }).dir);
    return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
  };
  result = compareRuns(await load('base', 1, 1), await load('slow', 2, 1.5));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('JUnit XML', () => {
  it('is valid XML with one testcase per group x metric and a failure per regression', () => {
    const xml = formatCompareJunit(result);
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (name) => ['testsuite', 'testcase'].includes(name),
    }).parse(xml);
    const suites = doc.testsuites.testsuite as {
      '@name': string;
      testcase: { '@name': string; failure?: { '@message': string } }[];
    }[];
    expect(suites).toHaveLength(4);
    const cases = suites.flatMap((s) => s.testcase);
    expect(cases).toHaveLength(result.comparisons.length);
    expect(cases).toHaveLength(36);
    const failures = cases.filter((c) => c.failure);
    expect(failures).toHaveLength(result.regressions);
    expect(result.regressions).toBeGreaterThan(8);
    expect(Number(doc.testsuites['@failures'])).toBe(result.regressions);
    // The hostile model name survives as text in the suite name, decoded back by the parser.
    expect(suites.map((s) => s['@name'])).toContain(`steady/${HOSTILE_MODEL}/priority`);
    expect(failures.some((c) => /ttft_ms\.p50 regressed/.test(c.failure!['@message']))).toBe(true);
    expect(xml).not.toContain('<script>');
  });

  it('escapes markup and drops characters XML forbids', () => {
    expect(escapeXml(`a<b>&"c'\u0001`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });
});

describe('markdown', () => {
  it('has a verdict heading and a row per group x metric, with cells escaped', () => {
    const md = formatCompareMarkdown(result);
    expect(md).toMatch(/^### inferbench compare: ❌ \d+ regression\(s\)/);
    const rows = md.split('\n').filter((l) => l.startsWith('| steady/'));
    expect(rows).toHaveLength(36);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(md).not.toContain('<script>');
    expect(rows.some((r) => r.includes('ttft\\_ms.p50') && r.includes('**REGRESSION**'))).toBe(true);
    expect(escapeMarkdownCell('a|b\nc')).toBe('a\\|b c');
  });
});
