/**
 * The documentation's links resolve: every relative link in README.md and every page under docs/ names a file that
 * exists, and every `#anchor` names a heading of its page (GitHub's slugs, read with a real Markdown
 * parser, so a link inside a code block is not a link). Pointers from the code into the docs
 * (`docs/<page>.md#anchor` in error hints, `--help` texts and schema descriptions) resolve too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DOCS = join(ROOT, 'docs');
const markdown = new MarkdownIt({ html: true });

interface Page {
  readonly anchors: ReadonlySet<string>;
  readonly links: readonly string[];
}

function readPage(path: string): Page {
  const tokens = markdown.parse(readFileSync(path, 'utf8'), {});
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const links: string[] = [];
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const inline = tokens[index + 1];
      const text = (inline?.children ?? [])
        .filter((child) => child.type === 'text' || child.type === 'code_inline')
        .map((child) => child.content)
        .join('');
      anchors.add(slugger.slug(text));
    }
    for (const child of token.children ?? []) {
      const href = child.type === 'link_open' ? child.attrGet('href') : null;
      if (href !== null) links.push(href);
    }
  });
  return { anchors, links };
}

/** README.md and every page under docs/, its subfolders (docs/apis/) included. */
function markdownFiles(): string[] {
  return [
    join(ROOT, 'README.md'),
    ...readdirSync(DOCS, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(DOCS, name)),
  ];
}

const pages = new Map(markdownFiles().map((path) => [path, readPage(path)]));

/** The problem with one link from `from`, or undefined when it resolves. */
function brokenLink(from: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined; // https:, mailto:: not ours to check
  const [pathPart = '', anchor] = href.split('#', 2);
  const target = pathPart === '' ? from : resolve(dirname(from), decodeURI(pathPart));
  if (!existsSync(target)) return `${href}: no file ${relative(ROOT, target)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(target).isDirectory() || !target.endsWith('.md'))
    return `${href}: an anchor into a file that is not Markdown`;
  const page = pages.get(target) ?? readPage(target);
  return page.anchors.has(anchor) ? undefined : `${href}: no heading #${anchor} in ${relative(ROOT, target)}`;
}

describe('documentation links', () => {
  it('every relative link and anchor in README.md and docs/ resolves', () => {
    const broken: string[] = [];
    for (const [path, page] of pages) {
      for (const href of page.links) {
        const problem = brokenLink(path, href);
        if (problem !== undefined) broken.push(`${relative(ROOT, path)}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('README.md is a landing page: the two commands first, under 300 lines, a link to every docs page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(300);
    const firstBlock = readme.slice(readme.indexOf('```'), readme.indexOf('```', readme.indexOf('```') + 3));
    expect(firstBlock).toContain('npm ci && npm start');
    expect(firstBlock).toContain('npm ci && npm test');
    const linked = new Set(
      (pages.get(join(ROOT, 'README.md'))?.links ?? [])
        .map((href) => href.split('#')[0])
        .filter((href) => href?.startsWith('docs/')),
    );
    const docs = readdirSync(DOCS)
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    expect(docs.filter((doc) => !linked.has(doc))).toEqual([]);
  });

  it('every pointer from the code into the docs resolves', () => {
    const pointer = /docs\/[a-z0-9-]+\.md(?:#[a-z0-9_-]+)?/g;
    const broken: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
      );
    let found = 0;
    for (const file of walk(join(ROOT, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(pointer)) {
        found += 1;
        const problem = brokenLink(join(ROOT, 'README.md'), match[0]);
        if (problem !== undefined) broken.push(`${relative(ROOT, file)}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
    expect(found).toBeGreaterThan(0);
  });

  it('finds a broken anchor and a missing file (the checker itself works)', () => {
    expect(brokenLink(join(ROOT, 'README.md'), 'docs/no-such-page.md')).toMatch(/no file/);
    expect(brokenLink(join(ROOT, 'README.md'), 'docs/capacity.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink(join(ROOT, 'README.md'), 'https://example.com/#x')).toBeUndefined();
  });
});
