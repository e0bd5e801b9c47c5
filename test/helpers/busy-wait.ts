/** Holds the event loop for `ms` of wall time, as a burst of client work would (tests of loop-turn behaviour). */
export function busyWaitMs(ms: number): void {
  const untilMs = performance.now() + ms;
  while (performance.now() < untilMs) {
    // busy on purpose
  }
}
