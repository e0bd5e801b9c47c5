/**
 * The test tiers (DESIGN.md, test/): four projects by folder, and three tags for what the inner loop leaves
 * out. A whole file is tagged with a `// @module-tag <name>` line at its top (vitest 4.1 test tags), a single
 * test with `{ tags: ['slow'] }`. `npm run test:fast` runs everything but slow, browser and tool;
 * `npm test` runs everything (what CI runs) and writes test-artifacts/timing.json.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real servers on real sockets: give slow CI machines room, never rely on it for timing.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    tags: [
      {
        name: 'slow',
        description: 'takes seconds of real time on purpose (timing truth, long runs); not in test:fast',
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
