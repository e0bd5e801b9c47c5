/**
 * `serve --workers N`: N emulator processes sharing one port through node:cluster (the primary accepts
 * connections and hands them to workers round-robin), so the emulator uses several cores. Each worker is
 * a whole emulator with its own engine, rate limiter and prompt cache: capacity (slots) and rate limits
 * are per worker, as with N replicas behind a load balancer.
 *
 * The primary forks the workers with its own argv, waits until every one listens, then prints the base
 * URL alone on the first stdout line exactly as a single-process `serve` does. Workers print nothing to
 * stdout; only the first prints the startup lines to stderr.
 */
import cluster, { type Worker } from 'node:cluster';
import { InferbenchError } from '../../errors.js';
import type { CliContext } from '../context.js';

const LISTENING = 'inferbench-serve-listening';

interface ListeningMessage {
  readonly kind: typeof LISTENING;
  readonly url: string;
}

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === LISTENING;
}

/** What a cluster worker of `serve` does differently; undefined in a normal process or the primary. */
export interface ServeWorkerRole {
  /** The first worker prints the startup lines; the others stay quiet. */
  readonly first: boolean;
  /** Tells the primary this worker listens on `url`. */
  announce(url: string): void;
  /** Resolves when the primary goes away (the worker must stop then). */
  readonly disconnected: Promise<void>;
  /** Closes the channel to the primary once the emulator is closed, so the worker process can exit. */
  release(): void;
}

export function serveWorkerRole(): ServeWorkerRole | undefined {
  const worker = cluster.worker;
  if (!cluster.isWorker || worker === undefined) return undefined;
  return {
    first: worker.id === 1,
    announce: (url) => void process.send?.({ kind: LISTENING, url } satisfies ListeningMessage),
    disconnected: new Promise((done) => worker.once('disconnect', () => done())),
    release: () => {
      if (worker.isConnected()) worker.disconnect();
    },
  };
}

/** True when this process must act as the primary of `serve --workers N`. */
export function isServePrimary(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}

/** Runs the primary: forks, waits for every worker to listen, prints the URL, stops them on interrupt. */
export async function runServePrimary(workers: number, ctx: CliContext): Promise<void> {
  const forked: Worker[] = [];
  const exited = new Set<Worker>();
  const exits: Promise<void>[] = [];
  let url = '';
  try {
    url = await new Promise<string>((resolve, reject) => {
      let ready = 0;
      for (let i = 0; i < workers; i++) {
        const worker = cluster.fork();
        forked.push(worker);
        exits.push(
          new Promise<void>((done) =>
            worker.once('exit', () => {
              exited.add(worker);
              done();
            }),
          ),
        );
        worker.on('message', (message: unknown) => {
          if (!isListening(message)) return;
          url = message.url;
          if (++ready === workers) resolve(message.url);
        });
        worker.once('exit', (code) => {
          if (ready < workers)
            reject(
              new InferbenchError('BAD_USAGE', `serve worker ${worker.id} exited with code ${code} before listening`, {
                hint: 'its error is printed above',
              }),
            );
        });
      }
      ctx.interrupt.addEventListener(
        'abort',
        () => reject(new InferbenchError('INTERRUPTED', 'interrupted while the workers were starting')),
        { once: true },
      );
    });
  } catch (error) {
    for (const worker of forked) if (!exited.has(worker)) worker.kill('SIGTERM');
    await Promise.all(exits);
    throw error;
  }
  ctx.stdout.write(`${url}\n`);
  ctx.stderr.write(
    `inferbench emulator: ${workers} worker processes on ${url} (capacity and rate limits are per worker)\n`,
  );
  await new Promise<void>((done) => {
    if (ctx.interrupt.aborted) return done();
    ctx.interrupt.addEventListener('abort', () => done(), { once: true });
    // A worker dying on its own ends the service: a half-capacity emulator would skew any benchmark.
    void Promise.race(exits).then(() => done());
  });
  for (const worker of forked) if (!exited.has(worker)) worker.kill('SIGTERM');
  await Promise.all(exits);
  ctx.stderr.write('emulator stopped\n');
}
