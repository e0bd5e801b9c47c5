/**
 * The live dashboard's HTML: one self-contained document with the report's styles and uPlot inlined
 * (report/html/page-shell.ts reads uPlot once), the live page's script, and no data: the page gets the
 * run from its own origin's event stream (`events`), so the document is made once per run. Its
 * Content-Security-Policy (LIVE_PAGE_CSP, sent as a header by the server) allows inline code and
 * connections to its own origin only.
 */
import { inlineScript, loadUplot } from '../html/page-shell.js';
import { PAGE_STYLES } from '../html/page-styles.js';
import { LIVE_PAGE_SCRIPT } from './live-page-script.js';
import { LIVE_PAGE_STYLES } from './live-page-styles.js';

/** Inline scripts and styles, the event stream of its own origin, nothing else (no CDN, no beacon). */
export const LIVE_PAGE_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page as a string. */
export function renderLivePage(): string {
  const uplot = loadUplot();
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // An empty icon, so the browser does not ask the server for /favicon.ico.
    '<link rel="icon" href="data:,">',
    '<title>inferbench live</title>',
    `<style>${uplot.styles.replace(/<\//g, '<\\/')}</style>`,
    `<style>${PAGE_STYLES}${LIVE_PAGE_STYLES}</style>`,
    '</head>',
    '<body>',
    '<main id="inferbench-main"></main>',
    '<noscript><p>This dashboard draws the run with JavaScript; enable it to watch the run.</p></noscript>',
    `<script>${inlineScript(uplot.script)}</script>`,
    `<script>${inlineScript(LIVE_PAGE_SCRIPT)}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
