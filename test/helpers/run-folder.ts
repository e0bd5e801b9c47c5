/**
 * A temporary folder per test file for profiles and run outputs, removed after the file's tests, with
 * the two things run tests keep doing in it: write a profile, read a run's summary.json. Also the tiny
 * tokenizer a profile names as its target.tokenizer when the test's subject is not token counting.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { RunSummary } from '../../src/metrics/run-summary.js';

/**
 * A word-level tokenizer.json of a few dozen words, for `target: { tokenizer: ... }` of a profile whose
 * test is not about token counting: o200k's vocabulary takes seconds to load, in every worker thread of
 * `run --workers` and every child, and a run of a test needs no real model's counts.
 */
export const TINY_TOKENIZER = fileURLToPath(new URL('../fixtures/tokenizers/tiny-wordlevel.json', import.meta.url));

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
