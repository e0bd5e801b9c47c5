/**
 * One 'abort' listener per AbortSignal, however many requests wait on it. A run's phase shares one
 * signal among all its requests in flight (hundreds); an EventTarget listener per request costs an
 * addEventListener/removeEventListener pair on the hot path and trips Node's MaxListenersExceededWarning
 * past 10. Here each signal gets a single listener that calls the callbacks registered in a Set.
 */

/** Callbacks waiting on a signal, keyed weakly: a signal nobody holds any more takes its Set with it. */
const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts, unless `offAbort(signal, onAbort)` came first. The caller
 * checks `signal.aborted` before: an already aborted signal never calls back.
 */
export function onAbort(signal: AbortSignal, callback: () => void): void {
  let callbacks = waiters.get(signal);
  if (callbacks === undefined) {
    const created = new Set<() => void>();
    callbacks = created;
    waiters.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal);
        for (const fn of created) fn();
        created.clear();
      },
      { once: true },
    );
  }
  callbacks.add(callback);
}

/** Forgets a callback registered with `onAbort` (the request ended first). */
export function offAbort(signal: AbortSignal, callback: () => void): void {
  waiters.get(signal)?.delete(callback);
}
