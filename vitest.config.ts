/**
 * The test tiers (DESIGN.md, test/): four projects by folder, and three tags for what the inner loop leaves
 * out. A whole file is tagged with a `// @module-tag <name>` line at its top (vitest 4.1 test tags), a single
 * test with `{ tags: ['slow'] }`. `npm run test:fast` runs everything but slow, browser, tool and timing;
 * `npm test` runs everything (what CI runs): the files side by side (most wait on sockets and timers, and
 * vitest's default is one file at a time on two cores), then the `timing` files one at a time, alone on
 * the machine, so that no other test's load is what they measure; it writes test-artifacts/timing*.json.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real servers on real sockets: give slow CI machines room, never rely on it for timing.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Files share their worker's module cache (no fresh module graph per file): importing the harness,
    // the tokenizer's ranks and vitest's own runner once per worker rather than once per file cut the
    // side-by-side part from 452 s to 279 s (unit alone 156 s -> 56 s). Tests keep no state in modules
    // they do not reset: a helper or server is started and closed per file.
    isolate: false,
    reporters: ['default'],
    tags: [
      {
        name: 'slow',
        description:
          'takes seconds of real time on purpose (timing truth, long runs), or repeats a feature under --workers (threads cost CPU to start); not in test:fast',
      },
      {
        name: 'timing',
        description:
          'its subject is timing truth on real time (capacity decisions, harness health, latency stamps); runs alone after the rest',
      },
      { name: 'browser', description: 'drives chromium (.ci/run installs it); not in test:fast' },
      {
        name: 'tool',
        description: 'runs an outside tool: npm pack, Prometheus, the benchmarks with wrk; not in test:fast',
      },
    ],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
