/**
 * The timing report of `npm test` (a vitest reporter beside the default one): test-artifacts/timing.json,
 * one entry per test file with its project, its tags, its tests and how long it took, import and hooks
 * included (vitest's json reporter counts only from the first test's start to the last one's end, and so
 * misses a file's imports, browser start and beforeAll runs); and the run's wall time. `npm run
 * test:slowest` prints the slowest files from it (test/slowest-files.mjs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** One test file's line of the report; milliseconds. */
export interface FileTiming {
  readonly file: string;
  readonly project: string;
  /** The tags of its tests, each once (`@module-tag` ones included). */
  readonly tags: readonly string[];
  readonly tests: number;
  readonly skipped: number;
  readonly state: string;
  /** Everything the file cost its worker: environment, harness, setup, import, tests and hooks. */
  readonly total_ms: number;
  /** Importing the file and running its suite callbacks. */
  readonly collect_ms: number;
  /** Its tests and hooks. */
  readonly tests_ms: number;
}

export interface TimingReport {
  readonly started_at: string;
  readonly wall_ms: number;
  readonly files: readonly FileTiming[];
}

export default class TimingReporter implements Reporter {
  private root = process.cwd();
  private startedMs = Date.now();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.startedMs = Date.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((module) => timingOf(module, this.root));
    files.sort((a, b) => b.total_ms - a.total_ms);
    const report: TimingReport = {
      started_at: new Date(this.startedMs).toISOString(),
      wall_ms: Date.now() - this.startedMs,
      files,
    };
    const dir = join(this.root, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'timing.json'), `${JSON.stringify(report, null, 1)}\n`);
  }
}

function timingOf(module: TestModule, root: string): FileTiming {
  const diagnostic = module.diagnostic();
  const tests = [...module.children.allTests()];
  const round = (ms: number): number => Math.round(ms);
  return {
    file: relative(root, module.moduleId),
    project: module.project.name,
    tags: [...new Set(tests.flatMap((test) => test.tags))].sort(),
    tests: tests.length,
    skipped: tests.filter((test) => test.result().state === 'skipped').length,
    state: module.state(),
    total_ms: round(
      diagnostic.environmentSetupDuration +
        diagnostic.prepareDuration +
        diagnostic.setupDuration +
        diagnostic.collectDuration +
        diagnostic.duration,
    ),
    collect_ms: round(diagnostic.collectDuration),
    tests_ms: round(diagnostic.duration),
  };
}
