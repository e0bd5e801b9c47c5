/**
 * The live dashboard's document: one self-contained page (uPlot and the styles inlined, nothing loaded
 * from anywhere, not even a favicon), and a Content-Security-Policy that allows inline code and its own
 * origin only.
 */
import { describe, expect, it } from 'vitest';
import { LIVE_PAGE_CSP, renderLivePage } from '../../../src/report/live/live-page.js';

describe('live page', () => {
  it('inlines uPlot and its script and loads nothing', () => {
    const html = renderLivePage();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('uPlot');
    expect(html).toContain("new EventSource('events')");
    // No element fetches anything: the one link is an empty data: icon.
    expect(html).not.toMatch(/<(?:script|img|iframe)[^>]+src=/i);
    expect(html.match(/<link[^>]*>/g)).toEqual(['<link rel="icon" href="data:,">']);
    // Inlined scripts cannot close their element early.
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('allows inline code and connections to its own origin, nothing else', () => {
    const directives = Object.fromEntries(
      LIVE_PAGE_CSP.split(';').map((d) => {
        const [name, ...values] = d.trim().split(' ');
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'script-src': "'unsafe-inline'",
      'style-src': "'unsafe-inline'",
      'connect-src': "'self'",
      'img-src': 'data:',
    });
  });
});
