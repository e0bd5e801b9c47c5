/**
 * abort-fanout: many requests waiting on one signal cost ONE listener on it (no
 * MaxListenersExceededWarning however many are in flight), every waiter is called on abort, and a
 * waiter removed first is not.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { offAbort, onAbort } from '../../../src/client/abort-fanout.js';

describe('abort fanout', () => {
  it('one listener for 500 waiters; abort calls those still registered, once each', () => {
    const controller = new AbortController();
    const calls = new Array<number>(500).fill(0);
    const callbacks = calls.map((_, i) => () => {
      calls[i] = (calls[i] as number) + 1;
    });
    for (const callback of callbacks) onAbort(controller.signal, callback);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (let i = 0; i < 100; i++) offAbort(controller.signal, callbacks[i] as () => void);
    controller.abort();
    controller.abort();
    expect(calls.slice(0, 100).every((n) => n === 0)).toBe(true);
    expect(calls.slice(100).every((n) => n === 1)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('signals are independent', () => {
    const a = new AbortController();
    const b = new AbortController();
    let calledA = 0;
    let calledB = 0;
    onAbort(a.signal, () => calledA++);
    onAbort(b.signal, () => calledB++);
    a.abort();
    expect([calledA, calledB]).toEqual([1, 0]);
  });
});
