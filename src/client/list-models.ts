/**
 * GET /v1/models through the client's dispatcher (same pool, same auth interceptor, same timeouts), for
 * a scenario without models. Unlike send(), this is a setup step: failures are thrown, with a hint, so
 * the run stops before it starts: TARGET_UNREACHABLE when no HTTP answer came (connection refused, TLS,
 * timeout), TARGET_ERROR when the target answered, but with an error or something that is no model list.
 */
import type { Dispatcher } from 'undici';
import { InferbenchError } from '../errors.js';
import { nowUs, systemClock } from '../util/clock.js';
import { errorDetails } from './error-body.js';
import { isObject } from './json-shape.js';
import { RequestDeadlines } from './request-deadlines.js';
import type { ClientOptions } from './types.js';

/**
 * The most a setup answer may hold: a model list or a catalog of thousands of models is far smaller, and
 * a server that streams without end must not fill the harness's memory before the time limit.
 */
export const MAX_SETUP_BODY_BYTES = 16 * 1024 * 1024;

/** The error a BodyCollector fails with when an answer grows past its limit (an answer came: not unreachable). */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
  }
}

/** Collects one whole small response body, at most `maxBytes` (also for client/target-get.ts). */
export class BodyCollector implements Dispatcher.DispatchHandler {
  readonly done: Promise<{ status: number; body: string }>;
  #resolve!: (value: { status: number; body: string }) => void;
  #reject!: (error: Error) => void;
  #status = 0;
  #parts: Buffer[] = [];
  #bytes = 0;
  #settled = false;
  #controller: Dispatcher.DispatchController | null = null;
  readonly #deadlines: RequestDeadlines;

  constructor(
    timeouts: ClientOptions['timeouts'],
    readonly maxBytes = MAX_SETUP_BODY_BYTES,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#deadlines = new RequestDeadlines(timeouts, systemClock, (phase, limitMs) =>
      this.fail(new Error(`${phase} timeout after ${limitMs} ms`)),
    );
  }

  start(): void {
    this.#deadlines.start(nowUs());
  }

  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.stop();
    if (this.#controller !== null && !this.#controller.aborted) this.#controller.abort(error);
    this.#reject(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(new Error('inferbench: request already ended'));
    else this.#deadlines.connected();
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#controller = controller;
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#deadlines.headersReceived(nowUs());
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#deadlines.data(nowUs());
    this.#bytes += chunk.length;
    if (this.#bytes > this.maxBytes) {
      this.#parts = [];
      this.fail(new BodyTooLargeError(this.maxBytes));
      return;
    }
    this.#parts.push(Buffer.from(chunk));
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.stop();
    this.#resolve({ status: this.#status, body: Buffer.concat(this.#parts).toString('utf8') });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }
}

/** The ids of GET {prefix}/v1/models; throws InferbenchError TARGET_UNREACHABLE (no answer) or TARGET_ERROR (an error answer). */
export async function listModelIds(
  dispatcher: Dispatcher,
  pathPrefix: string,
  headers: Readonly<Record<string, string>>,
  timeouts: ClientOptions['timeouts'],
  scrub: (message: string) => string,
  signal?: AbortSignal,
): Promise<string[]> {
  const collector = new BodyCollector(timeouts);
  const onAbort = (): void => collector.fail(new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) {
      collector.fail(new Error('aborted'));
    } else {
      collector.start();
      dispatcher.dispatch({ path: `${pathPrefix}/v1/models`, method: 'GET', headers }, collector);
    }
    const { status, body } = await collector.done;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(body);
    } catch {
      // Reported below as an unexpected answer.
    }
    if (status !== 200) {
      const message = errorDetails(parsed).message ?? body.slice(0, 120);
      throw new InferbenchError('TARGET_ERROR', scrub(`GET /v1/models answered ${status}: ${message}`), {
        hint:
          status === 401 || status === 403
            ? 'check the API key environment variable (target.api_key_env)'
            : 'check target.base_url',
      });
    }
    const data = isObject(parsed) ? parsed['data'] : null;
    if (!Array.isArray(data)) {
      throw new InferbenchError('TARGET_ERROR', 'GET /v1/models did not return a model list', {
        hint: 'check target.base_url',
      });
    }
    return data.flatMap((model: unknown) => (isObject(model) && typeof model['id'] === 'string' ? [model['id']] : []));
  } catch (error) {
    if (error instanceof InferbenchError) throw error;
    if (error instanceof BodyTooLargeError)
      throw new InferbenchError('TARGET_ERROR', `GET /v1/models answered more than ${error.maxBytes} bytes`, {
        hint: 'check target.base_url: a model list is far smaller',
      });
    const code = isObject(error) && typeof error['code'] === 'string' ? `${error['code']}: ` : '';
    throw new InferbenchError(
      'TARGET_UNREACHABLE',
      scrub(`GET /v1/models failed: ${code}${error instanceof Error ? error.message : String(error)}`),
      {
        hint: 'check that the target is running and target.base_url is right',
        cause: error,
      },
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
