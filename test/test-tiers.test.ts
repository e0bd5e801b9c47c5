/**
 * The test tiers of vitest.config.ts hold (DESIGN.md, test/): the four projects are the four folders,
 * so every test file runs in exactly one of them and none is left out; and what `npm run test:fast`
 * leaves out is tagged, so it stays out: a file that drives Chromium carries `@module-tag browser`, one
 * that runs an outside tool (npm pack, Prometheus, the built benchmarks) is tagged `tool`, and every tag
 * used is one the config defines (vitest refuses the others too, but only in the files it runs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';

const ROOT = resolve(import.meta.dirname, '..');
const SELF = 'test/test-tiers.test.ts';
const PROJECTS = ['unit', 'integration', 'cli', 'e2e'];

const testFiles: readonly string[] = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) =>
    relative(ROOT, join(ROOT, 'test', path))
      .split('\\')
      .join('/'),
  )
  .sort();

const source = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const moduleTags = (text: string): string[] =>
  [...text.matchAll(/(?:\/\/|\*)\s*@module-tag\s+([\w\-/]+)/g)].map((m) => m[1]!);
const testTags = (text: string): string[] =>
  [...text.matchAll(/tags:\s*\[([^\]]*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((t) => t[1]!));

describe('the test tiers', () => {
  it('are four projects, one per folder (test/*.test.ts with the unit tests)', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[] } }[];
    expect(projects.map((project) => [project.test.name, project.test.include])).toEqual([
      ['unit', ['test/unit/**/*.test.ts', 'test/*.test.ts']],
      ['integration', ['test/integration/**/*.test.ts']],
      ['cli', ['test/cli/**/*.test.ts']],
      ['e2e', ['test/e2e/**/*.test.ts']],
    ]);
  });

  it('leave no test file out: each is in one of the folders of a project', () => {
    expect(testFiles.length).toBeGreaterThan(150);
    const outside = testFiles.filter((file) => {
      const [, folder, rest] = file.split('/');
      return rest !== undefined && !PROJECTS.includes(folder!);
    });
    expect(outside).toEqual([]);
  });

  it('tag what test:fast leaves out: Chromium is browser, an outside tool is tool', () => {
    const untagged: string[] = [];
    // This file names the patterns it looks for.
    for (const file of testFiles.filter((path) => path !== SELF)) {
      const text = source(file);
      const tags = [...moduleTags(text), ...testTags(text)];
      if (/from 'playwright-core'/.test(text) && !moduleTags(text).includes('browser'))
        untagged.push(`${file}: browser`);
      const tool = /dist', 'bench'|\['pack'|'npm', \['pack'|spawn\(\s*PROMETHEUS/.test(text);
      if (tool && !tags.includes('tool')) untagged.push(`${file}: tool`);
    }
    expect(untagged).toEqual([]);
  });

  it('use only the tags the config defines', () => {
    const defined = (config.test?.tags ?? []).map((tag) => tag.name);
    expect(defined.sort()).toEqual(['browser', 'slow', 'tool']);
    const unknown = testFiles.flatMap((file) => {
      const text = source(file);
      return [...moduleTags(text), ...testTags(text)]
        .filter((tag) => !defined.includes(tag))
        .map((tag) => `${file}: ${tag}`);
    });
    expect(unknown).toEqual([]);
  });
});
