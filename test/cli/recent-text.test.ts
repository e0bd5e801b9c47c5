/**
 * What keeps a client that asks in a loop from costing the run a render per request (cli/recent-text.ts):
 * a text is made again only after `reuseMs` or once forgotten (a tick, the end), never from a failed make.
 */
import { describe, expect, it } from 'vitest';
import { RecentText } from '../../src/cli/recent-text.js';

describe('RecentText', () => {
  it('makes the text once within reuseMs, again after it and after forget()', () => {
    let nowMs = 1_000;
    let made = 0;
    const text = new RecentText(
      () => `body ${++made}`,
      100,
      () => nowMs,
    );
    for (let i = 0; i < 50; i++) expect(text.get()).toBe('body 1');
    nowMs += 99;
    expect(text.get()).toBe('body 1');
    nowMs += 1;
    expect(text.get()).toBe('body 2');
    text.forget();
    expect(text.get()).toBe('body 3');
    expect(made).toBe(3);
  });

  it('caches nothing from a make that throws', () => {
    let fail = true;
    const text = new RecentText(
      () => {
        if (fail) throw new Error('broken');
        return 'ok';
      },
      1_000,
      () => 0,
    );
    expect(() => text.get()).toThrow('broken');
    fail = false;
    expect(text.get()).toBe('ok');
  });
});
