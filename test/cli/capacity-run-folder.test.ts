/**
 * `inferbench capacity` without `--out` writes `reports/<time>-<profile>-capacity/` (docs/capacity.md says so):
 * the UTC start to the second, the profile's name, then `-capacity`, so a search sorts with the runs of
 * its time; the form docs/capacity.md gives is read from it and checked against the folder written. A short
 * search (two steps of 2 s) against a server of known capacity (test/helpers/slots-server.ts); `report`
 * then reads the folder it wrote. The objective is a p50, which decides in a few requests: the search
 * stays at its start of 5 req/s (about 10 requests a step), where a p90 raised it to 53 and 106 req/s
 * (the lowest load at which a p90 can decide in 2 s), some 330 requests in all, for the same folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-folder-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 4, serviceMs: 20 });
});
afterAll(async () => {
  await server.close();
});

/** docs/capacity.md's capacity folder, e.g. `<time>-<profile>-capacity`, as a pattern of folder names. */
function documentedFolder(profile: string): RegExp {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'capacity.md'), 'utf8');
  const form = /Outputs \(a run folder, `reports\/([^`]+)\/`/.exec(readme)?.[1];
  if (form === undefined) throw new Error('docs/capacity.md: the capacity Outputs paragraph names no reports/ folder');
  const pattern = form
    .split(/(<time>|<profile>)/)
    .map((part) =>
      part === '<time>'
        ? '\\d{8}T\\d{6}Z'
        : part === '<profile>'
          ? profile
          : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** `20261122T031500Z` of a wall-clock time, as run ids write it. */
function stamp(wallMs: number): string {
  return new Date(wallMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

describe('inferbench capacity run folder', () => {
  it('is reports/<time>-<profile>-capacity/ without --out, and report reads it', async () => {
    const path = folder.writeProfile(
      'folder-name',
      `name: folder-name
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: { mode: rate, rate: 5, arrival: constant }
    duration: 10s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity: { slo: { ttft_ms.p50: 1000ms }, start: 5, max_steps: 2, step_duration: 2s, step_warmup: 0s, block: 500ms }
`,
    );
    const before = Date.now();
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--quiet'], {
      cwd: folder.dir,
    });
    const after = Date.now();
    expect(result.code, result.stderr).toBe(0);
    const written = readdirSync(join(folder.dir, 'reports'));
    expect(written).toHaveLength(1);
    const name = written[0] as string;
    expect(name).toMatch(/^\d{8}T\d{6}Z-folder-name-capacity$/);
    expect(name).toMatch(documentedFolder('folder-name'));
    // The time is the search's start: between the command's start and its end.
    const time = name.slice(0, 'YYYYMMDDTHHMMSSZ'.length);
    expect(time >= stamp(before - 1000) && time <= stamp(after)).toBe(true);
    const summary = readSummary(join(folder.dir, 'reports', name));
    expect(summary.run_id).toBe(name);
    expect(summary.capacity?.groups[0]?.steps.length).toBeGreaterThan(0);
    // A capacity search's summary.json passes the result schema that `report` checks it against.
    const report = await runCliInProcess(['report', join('reports', name), '--quiet'], { cwd: folder.dir });
    expect(report.code, report.stderr).toBe(0);
  }, 60_000);
});
