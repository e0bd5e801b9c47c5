/**
 * The live progress of a run on the terminal: on a TTY one line redrawn in place (at most 10 times a
 * second), otherwise a plain line every 5 seconds for logs. It only formats snapshots the runner hands
 * it; it never reads the collector itself, and a slow terminal never holds up a request.
 */
import type { Writable } from 'node:stream';
import type { ProgressSnapshot } from '../aggregate/types.js';

export interface ProgressInput {
  readonly snapshot: ProgressSnapshot;
  readonly scenario: string;
  /** Some group is still warming up (its requests are not counted yet). */
  readonly warmup?: boolean;
  readonly plannedMs: number | null;
  readonly plannedRequests: number | null;
}

export interface ProgressLine {
  update(input: ProgressInput): void;
  /** Clears the TTY line so the summary starts on a clean line. */
  finish(): void;
}

export interface ProgressLineOptions {
  readonly tty: boolean;
  /** Minimum time between plain lines (default 5 s) and between TTY redraws (default 100 ms). */
  readonly plainIntervalMs?: number;
  readonly ttyIntervalMs?: number;
  readonly nowMs?: () => number;
}

export function createProgressLine(stream: Writable, options: ProgressLineOptions): ProgressLine {
  const now = options.nowMs ?? (() => performance.now());
  const minGapMs = options.tty ? (options.ttyIntervalMs ?? 100) : (options.plainIntervalMs ?? 5000);
  let lastWriteMs = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(input) {
      const at = now();
      if (at - lastWriteMs < minGapMs) return;
      // A stream that is not draining gets no more progress: dropping a line is better than buffering.
      if ((stream as { writableNeedDrain?: boolean }).writableNeedDrain) return;
      lastWriteMs = at;
      const text = formatProgress(input);
      if (options.tty) {
        stream.write(`\r\x1b[2K${text}`);
        drawn = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    finish() {
      if (options.tty && drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

export function formatProgress(input: ProgressInput): string {
  const s = input.snapshot;
  const parts = [
    input.warmup ? `[${input.scenario}: warmup]` : `[${input.scenario}]`,
    `${clock(s.elapsedMs)}`,
    `requests ${s.completed}/${s.started}`,
    `in flight ${s.inFlight}`,
    `${s.requestsPerS.toFixed(1)} req/s`,
    `${s.outputTokensPerS.toFixed(0)} tok/s`,
    `ttft p50 ${s.ttftP50Ms === null ? '-' : `${s.ttftP50Ms.toFixed(0)}ms`}`,
    `errors ${s.failed}`,
  ];
  if (s.throttled > 0) parts.push(`429 ${s.throttled}`);
  if (s.dropped > 0) parts.push(`dropped ${s.dropped}`);
  const left = timeLeftMs(input);
  if (left !== null) parts.push(`left ${clock(left)}`);
  return parts.join('  ');
}

function timeLeftMs(input: ProgressInput): number | null {
  const s = input.snapshot;
  if (input.plannedMs !== null) return Math.max(0, input.plannedMs - s.elapsedMs);
  if (input.plannedRequests !== null && s.requestsPerS > 0)
    return Math.max(0, ((input.plannedRequests - s.completed) / s.requestsPerS) * 1000);
  return null;
}

function clock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}
