/**
 * The profiles the client benchmark runs inferbench with (YAML text, resolved in the client child as
 * a user's profile would be): closed-loop streams held open, plain non-streamed chat at fixed
 * connections, and open-loop Poisson arrivals of short streams. The model is named, so the only request
 * before the load is the pre-flight's models list.
 */
import { BENCH_MODEL } from './client-target-bytes.js';

/** `streams` streamed requests launched once each and held open until the server ends them. */
export function holdStreamsProfile(url: string, streams: number): string {
  return `
name: client-bench-hold
target: { base_url: "${url}" }
scenarios:
  - name: hold
    models: [${BENCH_MODEL}]
    load: { mode: concurrency, concurrency: ${streams} }
    requests: ${streams}
    request: { max_completion_tokens: 1000000, stream: true }
    prompt: { input_tokens: 16 }
`;
}

/** Plain (non-streamed) chat, closed loop at `connections`, for `durationS` after a short warmup. */
export function plainHttpProfile(url: string, connections: number, durationS: number, warmupS: number): string {
  return `
name: client-bench-plain
target: { base_url: "${url}" }
scenarios:
  - name: plain
    models: [${BENCH_MODEL}]
    load: { mode: concurrency, concurrency: ${connections} }
    duration: ${durationS}s
    warmup: ${warmupS}s
    request: { max_completion_tokens: 8, stream: false }
    prompt: { input_tokens: 16 }
`;
}

/** Open loop: Poisson arrivals at `rate`/s of short streams for `durationS` after a short warmup. */
export function openLoopProfile(url: string, rate: number, durationS: number, warmupS: number): string {
  return `
name: client-bench-open
target: { base_url: "${url}" }
scenarios:
  - name: open
    models: [${BENCH_MODEL}]
    load: { mode: rate, rate: ${rate}, arrival: poisson, max_concurrency: 1000 }
    duration: ${durationS}s
    warmup: ${warmupS}s
    request: { max_completion_tokens: 4, stream: true }
    prompt: { input_tokens: 16 }
`;
}

/** The body the comparators send (the server looks only at `"stream":true`). */
export function comparatorBody(stream: boolean): string {
  return JSON.stringify({
    model: BENCH_MODEL,
    messages: [{ role: 'user', content: 'bench bench bench bench bench bench bench bench bench bench bench bench' }],
    max_completion_tokens: stream ? 1_000_000 : 8,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });
}
