/**
 * The run folders a `trend` command line names: each argument is a run folder (or its summary.json), or a
 * folder of run folders such as downloaded CI artifacts (`artifacts/<name>/summary.json`, or one level
 * deeper: `artifacts/<name>/<run-id>/summary.json`). A folder holding a summary.json is a run and is not
 * searched further. A run named twice (the same folder again, its summary.json, a folder that holds it, a
 * path through `..` or a symlink) is kept once, where it first appears: compared with itself it would be a
 * pair of one run.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InferbenchError } from '../../errors.js';
import { SUMMARY_JSON } from '../summary-json.js';

/** How deep below an argument a run folder may sit (artifacts/<name>/<run-id>/). */
const MAX_DEPTH = 2;

/** The run folders (or summary.json paths) of the arguments, in argument order, each folder's runs by name, each run once. */
export function findRunPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const keep = (run: string): void => {
    const real = realpathSync(run);
    const folder = basename(real) === SUMMARY_JSON ? dirname(real) : real;
    if (seen.has(folder)) return;
    seen.add(folder);
    out.push(run);
  };
  for (const path of paths) {
    if (!existsSync(path))
      throw new InferbenchError('BAD_USAGE', `${path} does not exist.`, {
        hint: 'Pass run folders (reports/<run-id>/) or a folder of downloaded run artifacts.',
      });
    if (!statSync(path).isDirectory() || existsSync(join(path, SUMMARY_JSON))) {
      keep(path);
      continue;
    }
    const found = runsBelow(path, MAX_DEPTH);
    if (found.length === 0)
      throw new InferbenchError(
        'BAD_RESULTS',
        `${path} holds no run: no ${SUMMARY_JSON} in it or in its subfolders (${MAX_DEPTH} levels down).`,
        { hint: 'Pass run folders (reports/<run-id>/) or a folder whose subfolders are run folders.' },
      );
    for (const run of found) keep(run);
  }
  return out;
}

function runsBelow(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return children.flatMap((name) => {
    const child = join(dir, name);
    return existsSync(join(child, SUMMARY_JSON)) ? [child] : runsBelow(child, depth - 1);
  });
}
