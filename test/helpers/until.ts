/** Waits (polling every 10 ms) until `condition` holds; throws naming `what` after `limitMs`. */
export async function until(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
