/**
 * `report`, `compare`, `trend` and `merge` validate a results folder's summary.json whole against the result schema
 * (metrics/run-summary.ts) before reading it: a wrong value deep inside is exit 2 naming the file and the
 * JSON path of the value, not a run of wrong numbers with exit 0. Good folders (and the nulls the writer
 * puts where a number was never measured) still read.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { STACK_LINE } from '../helpers/hostile-values.js';
import { makeRunDir } from '../fixtures/make-run.js';

let root: string;
let goodDir: string;
let otherDir: string;
let caseNumber = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-results-schema-'));
  goodDir = makeRunDir(join(root, 'good'), { seed: 3, requestsPerGroup: 20, withRequestsCsv: true }).dir;
  otherDir = makeRunDir(join(root, 'other'), { seed: 4, requestsPerGroup: 20, withRequestsCsv: true }).dir;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Json = Record<string, unknown>;

/** A copy of the good folder whose summary.json was changed by `edit`; returns the folder. */
function damaged(edit: (summary: Json & { groups: Json[] }) => void): string {
  const dir = join(root, `case-${++caseNumber}`);
  cpSync(goodDir, dir, { recursive: true });
  const path = join(dir, 'summary.json');
  const summary = JSON.parse(readFileSync(path, 'utf8')) as Json & { groups: Json[] };
  edit(summary);
  writeFileSync(path, JSON.stringify(summary, null, 2));
  return dir;
}

const group0 = (s: { groups: Json[] }): Json & { metrics: Json; histograms: Json; requests: Json } =>
  s.groups[0] as Json & { metrics: Json; histograms: Json; requests: Json };

const CASES: { name: string; edit: (s: Json & { groups: Json[] }) => void; problem: string }[] = [
  {
    name: 'a p50 of "NaN"',
    edit: (s) => {
      (group0(s).metrics['ttft_ms'] as Json)['p50'] = 'NaN';
    },
    problem: 'groups[0].metrics.ttft_ms.p50: expected number, got string',
  },
  {
    name: 'a histogram that is not base64',
    edit: (s) => {
      group0(s).histograms['e2e_ms'] = 'not a histogram!';
    },
    problem: 'groups[0].histograms.e2e_ms: expected an HdrHistogram in compressed base64',
  },
  {
    name: 'a count of -1',
    edit: (s) => {
      group0(s).requests['ok'] = -1;
    },
    problem: 'groups[0].requests.ok: expected a count (an integer >= 0), got -1',
  },
  {
    name: 'a missing group field',
    edit: (s) => {
      delete group0(s)['scenario'];
    },
    problem: 'groups[0].scenario: expected string, got nothing',
  },
  {
    name: 'a metric stat of null (only harness figures may be null)',
    edit: (s) => {
      (group0(s).metrics['e2e_ms'] as Json)['p99'] = null;
    },
    problem: 'groups[0].metrics.e2e_ms.p99: expected number, got null',
  },
];

const COMMANDS: { name: string; argv: (dir: string) => string[] }[] = [
  { name: 'report', argv: (dir) => ['report', dir, '--out', join(root, `out-${caseNumber}`)] },
  { name: 'compare (baseline)', argv: (dir) => ['compare', dir, otherDir, '--force'] },
  { name: 'compare (candidate)', argv: (dir) => ['compare', otherDir, dir, '--force'] },
  { name: 'trend', argv: (dir) => ['trend', otherDir, dir, '--out', join(root, `trend-${caseNumber}`), '--force'] },
  { name: 'merge', argv: (dir) => ['merge', dir, otherDir, '--out', join(root, `merged-${caseNumber}`), '--force'] },
];

describe('results folders are validated whole before report, compare, trend and merge read them', () => {
  for (const command of COMMANDS) {
    for (const damage of CASES) {
      it(`${command.name}: ${damage.name} is exit 2 naming the file and the path`, async () => {
        const dir = damaged(damage.edit);
        const result = await runCliInProcess(command.argv(dir), { cwd: root });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`${join(dir, 'summary.json')}: ${damage.problem}`);
        expect(result.stderr).not.toMatch(STACK_LINE);
      });
    }
  }

  it('lists every wrong value of a file, each with its path', async () => {
    const dir = damaged((s) => {
      (group0(s).metrics['ttft_ms'] as Json)['p50'] = 'NaN';
      (s['harness'] as Json)['client_bottleneck'] = 'no';
    });
    const result = await runCliInProcess(['report', dir, '--out', join(root, 'out-both')], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('groups[0].metrics.ttft_ms.p50: expected number, got string');
    expect(result.stderr).toContain('harness.client_bottleneck: expected boolean, got string');
  });

  it('a good folder still reads, with null where the writer put a figure it never measured', async () => {
    const dir = damaged((s) => {
      const harness = s['harness'] as Json;
      harness['cpu_utilization'] = null;
      (harness['event_loop_delay_ms'] as Json)['p99'] = null;
    });
    for (const argv of [
      ['report', dir, '--out', join(root, 'out-good')],
      ['compare', dir, otherDir, '--force'],
      ['merge', dir, otherDir, '--out', join(root, 'merged-good'), '--force'],
    ]) {
      const result = await runCliInProcess(argv, { cwd: root });
      expect(result.stderr).not.toContain('summary.json');
      expect(result.stderr).not.toMatch(STACK_LINE);
      expect([0, 99]).toContain(result.code);
    }
  });
});
