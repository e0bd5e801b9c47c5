/**
 * A temporary folder per test file for profiles and run outputs, removed after the file's tests, with
 * the two things run tests keep doing in it: write a profile, read a run's summary.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RunSummary } from '../../src/metrics/run-summary.js';

export interface RunFolder {
  /** The folder (valid inside tests and hooks, after beforeAll ran). */
  readonly dir: string;
  /** Writes `<dir>/<name>.yaml` and returns its path. */
  writeProfile(name: string, text: string): string;
}

/** Registers beforeAll/afterAll hooks that create and remove the folder. */
export function useRunFolder(prefix: string): RunFolder {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    writeProfile(name, text) {
      const path = join(dir, `${name}.yaml`);
      writeFileSync(path, text);
      return path;
    },
  };
}

export function readSummary(runDir: string): RunSummary {
  return JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
}
