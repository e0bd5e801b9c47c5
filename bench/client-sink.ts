/**
 * The "sink" comparator of the client benchmark: the least a streaming client must do. It dispatches
 * chat requests on an undici Pool with a handler of its own and finds the SSE event boundaries in what it
 * reads (a blank line, LF framing as the target server writes it), counting reads and events; it takes
 * no timestamps, parses no JSON and records nothing. inferbench's client does all this and measures; the
 * ratio of the two is what measuring costs.
 */
import { Pool, type Dispatcher } from 'undici';

const LF = 0x0a;

/** Reads and events seen so far by every stream of a sink. */
export interface SinkCounts {
  reads: number;
  events: number;
  inFlight: number;
  completed: number;
  failed: number;
}

/** One streamed request: counts event boundaries across reads. */
class SinkHandler implements Dispatcher.DispatchHandler {
  readonly #counts: SinkCounts;
  readonly #done: () => void;
  /** The previous read ended with LF: a LF at the start of this one ends an event. */
  #endedWithLf = false;

  constructor(counts: SinkCounts, done: () => void) {
    this.#counts = counts;
    this.#done = done;
  }

  // undici tells handler APIs apart by onRequestStart: this is the new one, as inferbench's client uses.
  onRequestStart(): void {}

  onResponseStart(): void {}

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const counts = this.#counts;
    counts.reads++;
    let from = 0;
    if (this.#endedWithLf && chunk[0] === LF) {
      counts.events++;
      from = 1;
    }
    for (let at = chunk.indexOf(LF, from); at !== -1; at = chunk.indexOf(LF, at + 1)) {
      if (chunk[at + 1] === LF) {
        counts.events++;
        at++;
      }
    }
    this.#endedWithLf = chunk[chunk.length - 1] === LF;
  }

  onResponseEnd(): void {
    this.#counts.completed++;
    this.#done();
  }

  onResponseError(_controller: Dispatcher.DispatchController, _error: Error): void {
    this.#counts.failed++;
    this.#done();
  }
}

/** A sink holding `streams` streamed requests open at once until the server ends them. */
export class SinkClient {
  readonly counts: SinkCounts = { reads: 0, events: 0, inFlight: 0, completed: 0, failed: 0 };
  readonly #pool: Pool;
  readonly #origin: string;
  readonly #body: string;

  constructor(origin: string, connections: number, body: string) {
    this.#origin = origin;
    this.#body = body;
    this.#pool = new Pool(origin, { connections, pipelining: 1 });
  }

  /** Sends `streams` requests at once; resolves when every one has ended. */
  hold(streams: number): Promise<void> {
    const ends: Promise<void>[] = [];
    for (let i = 0; i < streams; i++) ends.push(this.#send());
    return Promise.all(ends).then(() => undefined);
  }

  #send(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.counts.inFlight++;
      const handler = new SinkHandler(this.counts, () => {
        this.counts.inFlight--;
        resolve();
      });
      this.#pool.dispatch(
        {
          origin: this.#origin,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: this.#body,
        },
        handler,
      );
    });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
