/**
 * The soak benchmark's sampler: every few seconds, this process's resident set size, V8 heap used, open
 * file descriptors (entries of /proc/self/fd) and the event loop's delay p99 since the previous sample
 * (perf_hooks monitorEventLoopDelay, reset at each sample). It runs in the harness's own process, so what
 * it samples is the harness (the emulator it drives runs in a child process and is not counted).
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** One sample of the harness's process. */
export interface SoakSample {
  /** Seconds since sampling started. */
  readonly t_s: number;
  readonly rss_mb: number;
  readonly heap_used_mb: number;
  /** Open file descriptors; null where /proc/self/fd does not exist (not Linux). */
  readonly fds: number | null;
  /** Event-loop delay p99 over the interval since the previous sample, beyond the monitor's resolution. */
  readonly eld_p99_ms: number;
  readonly eld_max_ms: number;
}

export interface SoakSampler {
  /** Wall clock (epoch ms) when sampling started, to place the run's started_at and ended_at on the samples. */
  readonly startedAtWallMs: number;
  /** Takes a last sample, stops, and returns every sample in order. */
  stop(): SoakSample[];
}

/** The monitor's sampling interval; its samples include it, so it is subtracted (as runner/harness-monitor.ts does). */
const ELD_RESOLUTION_MS = 10;
const MB = 1024 * 1024;

function openFds(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

/** Starts sampling at once and then every `intervalMs`. */
export function startSoakSampler(intervalMs: number): SoakSampler {
  const delay = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  delay.enable();
  const startedAtMs = performance.now();
  const startedAtWallMs = Date.now();
  const samples: SoakSample[] = [];
  const delayMs = (ns: number): number => (delay.count > 0 ? round3(Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS)) : 0);
  const sample = (): void => {
    const memory = process.memoryUsage();
    samples.push({
      t_s: round3((performance.now() - startedAtMs) / 1000),
      rss_mb: round3(memory.rss / MB),
      heap_used_mb: round3(memory.heapUsed / MB),
      fds: openFds(),
      eld_p99_ms: delayMs(delay.percentile(99)),
      eld_max_ms: delayMs(delay.max),
    });
    delay.reset();
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    startedAtWallMs,
    stop() {
      clearInterval(timer);
      sample();
      delay.disable();
      return samples;
    },
  };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
