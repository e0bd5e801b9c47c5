/**
 * A recorder in front of a server's `GET /metrics`: it passes each GET on and keeps every body the server
 * answered, in order, so a test can check what a run scraped against what the server exposed at that
 * scrape (not a guess of it).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsRecorder {
  /** The recorder's `/metrics` URL (give it to target.server_metrics). */
  readonly url: string;
  /** Every body passed on, in the order answered. */
  readonly recorded: readonly string[];
  close(): Promise<void>;
}

/** Starts a recorder of `upstream` (a `/metrics` URL); `onBody` sees each body as it passes. */
export async function startMetricsRecorder(
  upstream: string,
  onBody: (text: string) => void = () => undefined,
): Promise<MetricsRecorder> {
  const recorded: string[] = [];
  const server = createServer((_req, res) => {
    fetch(upstream)
      .then((answer) => answer.text())
      .then((text) => {
        recorded.push(text);
        onBody(text);
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        res.end(text);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
    recorded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
