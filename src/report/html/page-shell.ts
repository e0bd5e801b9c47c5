/**
 * Renders a PageDocument into one self-contained HTML file: uPlot's script and styles, our styles and
 * the page script inlined; the data embedded as JSON in a `<script type="application/json">` with every
 * `<` escaped, so no string can close the tag. A Content-Security-Policy forbids every network fetch, so
 * the page works the same from file://, offline, forever.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { PageDocument } from './document-model.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLES } from './page-styles.js';

let uplotAssets: { script: string; styles: string } | undefined;

/** uPlot's IIFE build and CSS, read once from node_modules (resolved from this package). */
export function loadUplot(): { script: string; styles: string } {
  if (!uplotAssets) {
    const require = createRequire(import.meta.url);
    uplotAssets = {
      script: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      styles: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    };
  }
  return uplotAssets;
}

/** JSON that is safe inside a script element: `<` (and the JS line separators) escaped. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A script's text made safe to inline: `</script` cannot appear in it. */
export function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1');
}

/** The whole page as a string. */
export function renderHtmlPage(doc: PageDocument): string {
  const uplot = loadUplot();
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may be fetched: the report is one file and must not call home or break when a CDN moves.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">`,
    '<title>inferbench</title>',
    `<style>${uplot.styles.replace(/<\//g, '<\\/')}</style>`,
    `<style>${PAGE_STYLES}</style>`,
    '</head>',
    '<body>',
    '<main id="inferbench-main"></main>',
    '<noscript><p>This report draws its tables and charts with JavaScript; enable it to read the report.</p></noscript>',
    `<script type="application/json" id="inferbench-data">${embedJson(doc)}</script>`,
    `<script>${inlineScript(uplot.script)}</script>`,
    `<script>${inlineScript(PAGE_SCRIPT)}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
