/**
 * `npm run test:slowest`: the slowest test files of the last `npm test`, from the timing report it writes
 * (test-artifacts/timing.json, test/timing-reporter.ts): each file's seconds (import and hooks included),
 * its project, its tags and its number of tests; then the seconds per project and the run's wall time.
 * Files run side by side, so their seconds add up to more than the wall time.
 *
 *     npm run test:slowest                # the 15 slowest files
 *     npm run test:slowest -- 30 FILE     # the 30 slowest, from another report
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const [countArg = '15', reportArg = 'test-artifacts/timing.json'] = process.argv.slice(2);
const count = Number(countArg);
if (!Number.isInteger(count) || count < 1) {
  console.error(`the count must be a whole number of files, got ${countArg}`);
  process.exit(2);
}

let report;
try {
  report = JSON.parse(readFileSync(resolve(ROOT, reportArg), 'utf8'));
} catch (error) {
  console.error(`cannot read ${reportArg}: ${error.message}\nrun \`npm test\` first: it writes the timing report`);
  process.exit(2);
}

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
const files = [...report.files].sort((a, b) => b.total_ms - a.total_ms);
const shown = files.slice(0, count);
const tagWidth = Math.max(4, ...shown.map((file) => file.tags.join(',').length));

console.log(`the ${shown.length} slowest of ${files.length} test files (${reportArg}):`);
console.log(`${'seconds'.padStart(7)}  ${'project'.padEnd(11)}  ${'tags'.padEnd(tagWidth)}  tests  file`);
for (const file of shown) {
  const state = file.state === 'passed' ? '' : `  (${file.state})`;
  const tests = `${file.tests - file.skipped}${file.skipped ? `+${file.skipped} skipped` : ''}`;
  console.log(
    `${seconds(file.total_ms)}  ${file.project.padEnd(11)}  ${file.tags.join(',').padEnd(tagWidth)}  ${tests.padStart(5)}  ${file.file}${state}`,
  );
}

const projects = new Map();
for (const file of files) {
  const sums = projects.get(file.project) ?? { files: 0, ms: 0 };
  projects.set(file.project, { files: sums.files + 1, ms: sums.ms + file.total_ms });
}
console.log('\nseconds of the files, per project:');
for (const [project, sums] of [...projects].sort((a, b) => b[1].ms - a[1].ms))
  console.log(`${seconds(sums.ms)}  ${project.padEnd(11)}  ${sums.files} files`);
console.log(`\nwall time of the run: ${(report.wall_ms / 1000).toFixed(0)} s, started ${report.started_at}`);
