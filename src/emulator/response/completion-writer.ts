/**
 * Drives one admitted completion from engine submission to the last byte: streams the tokens the engine
 * releases (all tokens of one tick in ONE socket write) or answers the whole body at the end, and carries
 * out the request's FaultPlan (the fault injector only decides; the effect of every kind lives here).
 * time_info is stamped right before the last write, so the time tokens were held (a stall, slow
 * headers) counts as completion time. A client that goes away cancels the engine job.
 */
import type { ServerResponse } from 'node:http';
import { CONTENT_TYPE } from '../../protocol/headers.js';
import { ApiError } from '../api-error.js';
import type { CompletionPlan } from '../completion-plan.js';
import type { Engine, EngineHandle, EngineJob, JobTimes } from '../engine.js';
import type { FaultPlan } from '../hooks.js';
import { sendJson } from '../http/send.js';
import type { ModelMeter } from '../server-metrics/model-meter.js';
import { timeInfoOf } from '../time-info.js';
import { ChunkEncoder, completionBody, type ResponseIdentity } from './chunk-encoder.js';

export interface CompletionRun {
  readonly res: ServerResponse;
  readonly stream: boolean;
  readonly identity: ResponseIdentity;
  readonly plan: CompletionPlan;
  readonly cachedTokens: number;
  readonly job: EngineJob;
  readonly engine: Engine;
  /** GET /metrics' counters of the job's model: fed at the first token, per tick and at the last byte. */
  readonly meter: ModelMeter;
  readonly fault: FaultPlan;
  /** Rate-limit state: on the 200, and on an error answered instead of it (a fault in a whole-body answer). */
  readonly headers: Readonly<Record<string, string>>;
  readonly doneMarker: boolean;
}

/** The error a fault answers with before any header, or null when the fault is not of that kind. */
export function faultResponseError(fault: FaultPlan): ApiError | null {
  if (fault.kind === 'http_500')
    return new ApiError(
      500,
      'internal_server_error',
      'internal_error',
      'The server had an error while processing your request (injected fault).',
    );
  if (fault.kind === 'http_503')
    return new ApiError(
      503,
      'service_unavailable_error',
      'service_unavailable',
      'The service is temporarily unavailable (injected fault).',
    );
  return null;
}

function streamErrorEvent(message = 'The server had an error while generating the response (injected fault).'): string {
  const error = { message, type: 'internal_server_error', param: null, code: 'internal_error' };
  return `data: ${JSON.stringify({ error, status_code: 500 })}\n\n`;
}

/** Runs the completion; never throws (failures after headers end the response). */
export function runCompletion(run: CompletionRun): void {
  new CompletionWriter(run).start();
}

class CompletionWriter {
  readonly #run: CompletionRun;
  readonly #encoder: ChunkEncoder | null;
  readonly #total: number;
  #handle: EngineHandle | undefined;
  /** Tokens written (or, non-streaming, accounted for). */
  #sent = 0;
  /** Released by the engine, not yet written (held by a stall or slow headers). */
  #pending = 0;
  #held = false;
  #stallDone = false;
  #headersSent = false;
  /** The prompt has been counted as processed (the first token came, or the job ended without one). */
  #prefilled = false;
  /** Set when the engine is done: the job's phase boundaries, time_info's but for the last write. */
  #finishTimes: JobTimes | null = null;
  #done = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(run: CompletionRun) {
    this.#run = run;
    this.#encoder = run.stream ? new ChunkEncoder(run.identity, run.plan) : null;
    this.#total = run.plan.tokens.length;
  }

  start(): void {
    const { res, fault } = this.#run;
    // The client may have gone while the request waited to be planned: then there is nothing to run.
    if (res.destroyed) {
      this.#done = true;
      return;
    }
    res.on('close', () => {
      if (!this.#done) this.#abandon();
    });
    if (fault.kind === 'stall_before_headers') {
      this.#timer = setTimeout(() => this.#begin(), fault.stallMs);
      return;
    }
    this.#begin();
  }

  #begin(): void {
    if (this.#done) return;
    const { fault } = this.#run;
    if (fault.kind === 'slow_headers') {
      // The server works while the headers are late: tokens released meanwhile go out with the headers.
      this.#held = true;
      this.#timer = setTimeout(() => {
        this.#held = false;
        this.#sendHeaders();
        this.#guarded();
      }, fault.stallMs);
    } else {
      this.#sendHeaders();
    }
    const { engine, job, meter, plan, cachedTokens } = this.#run;
    const receivedMs = job.receivedMs ?? engine.nowMs();
    this.#handle = engine.submit(job, {
      onTokens: (count, nowMs) => {
        if (!this.#prefilled) {
          // The first token: the prompt is processed, and TTFT is what time_info's queue + prompt will say.
          this.#prefilled = true;
          meter.prefilled(plan.promptTokens, cachedTokens);
          meter.firstToken(((nowMs ?? engine.nowMs()) - receivedMs) / 1000);
        }
        meter.generated(count);
        this.#pending += count;
        this.#guarded();
      },
      onFinish: (times) => {
        if (!this.#prefilled) {
          this.#prefilled = true;
          meter.prefilled(plan.promptTokens, cachedTokens);
        }
        this.#finishTimes = times;
        this.#guarded();
      },
    });
    this.#guarded();
  }

  /**
   * The engine calls back from its shared timer: a bug here must end this response, not throw into the
   * tick that serves every other stream.
   */
  #guarded(): void {
    try {
      this.#flush();
    } catch {
      if (this.#done) return;
      this.#done = true;
      this.#handle?.cancel();
      const { res, headers } = this.#run;
      if (res.headersSent) res.end(streamErrorEvent('The server had an error while generating the response.'));
      else {
        const error = faultResponseError({ kind: 'http_500', afterTokens: 0, stallMs: 0 })!;
        sendJson(
          res,
          500,
          { ...error.toBody(), message: 'The server had an error while processing your request.' },
          headers,
        );
      }
    }
  }

  #sendHeaders(): void {
    if (this.#headersSent || !this.#encoder) return;
    this.#headersSent = true;
    const { res, headers } = this.#run;
    res.writeHead(200, {
      ...headers,
      'content-type': CONTENT_TYPE.eventStream,
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(this.#encoder.roleChunk());
  }

  /** Writes what is due, applying the fault when its token count is reached. */
  #flush(): void {
    if (this.#done || this.#held) return;
    const { fault } = this.#run;
    let upTo = this.#sent + this.#pending;
    const breaking = fault.kind === 'stream_error' || fault.kind === 'reset';
    const stalling = fault.kind === 'stall_between_tokens' && !this.#stallDone;
    const at = Math.min(fault.afterTokens, this.#total);
    if ((breaking || stalling) && upTo >= at) upTo = at;
    this.#write(this.#sent, upTo);
    this.#pending -= upTo - this.#sent;
    this.#sent = upTo;
    // A fault whose token count is beyond a short answer still happens, at the end instead of the last chunk.
    if (breaking && this.#sent === at && (at === fault.afterTokens || this.#finishTimes !== null)) {
      this.#break(fault.kind === 'reset');
      return;
    }
    if (stalling && this.#sent >= at && (this.#pending > 0 || this.#finishTimes || this.#sent < this.#total)) {
      this.#held = true;
      this.#stallDone = true;
      this.#timer = setTimeout(() => {
        this.#held = false;
        this.#guarded();
      }, fault.stallMs);
      return;
    }
    if (this.#finishTimes && this.#pending === 0 && this.#sent === this.#total) this.#finish(this.#finishTimes);
  }

  #write(from: number, to: number): void {
    if (!this.#encoder || to <= from) return;
    this.#run.res.write(this.#encoder.tokens(from, to));
  }

  #finish(times: JobTimes): void {
    this.#done = true;
    const { res, identity, plan, cachedTokens, doneMarker, headers, engine } = this.#run;
    // Stamped just before the last bytes are serialized and written: nothing the server does is left out.
    const timeInfo = timeInfoOf(times, engine.nowMs());
    this.#run.meter.answered(plan.finishReason, timeInfo.queue_time, timeInfo.total_time);
    if (this.#encoder) {
      res.end(this.#encoder.finalChunk(cachedTokens, timeInfo, doneMarker));
    } else {
      sendJson(res, 200, completionBody(identity, plan, cachedTokens, timeInfo), headers);
    }
  }

  /** stream_error: an error event, then the end; reset: the socket destroyed. */
  #break(reset: boolean): void {
    this.#done = true;
    this.#handle?.cancel();
    const { res, headers } = this.#run;
    if (reset) {
      // Let the tokens already written reach the client, then close the connection mid-body.
      const socket = res.socket;
      if (!socket) return void res.destroy();
      // An empty write's callback runs once everything queued before it is flushed.
      socket.write(Buffer.alloc(0), () => socket.destroy());
      return;
    }
    if (this.#encoder) {
      res.end(streamErrorEvent());
    } else {
      const error = faultResponseError({ kind: 'http_500', afterTokens: 0, stallMs: 0 })!;
      sendJson(res, error.status, error.toBody(), headers);
    }
  }

  #abandon(): void {
    this.#done = true;
    this.#handle?.cancel();
    if (this.#timer) clearTimeout(this.#timer);
  }
}
