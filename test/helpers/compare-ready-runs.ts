/**
 * What the tests that compare real runs against the embedded emulator share: a short closed-loop profile
 * whose medians a slower emulator moves far beyond their tolerances, that slower emulator's config, and the
 * compare flags that turn off the checks a few dozen requests on a shared machine cannot decide (tails, ITL).
 */

/** A profile of `requests` (plus 4 warmup) on small-fast-8b at concurrency 4, medians tolerated up to 100%. */
export function compareReadyProfile(name: string, requests: number, extra = ''): string {
  return `name: ${name}
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: ${requests}
    warmup_requests: 4
    prompt: { input_tokens: 64, output_tokens: 24 }
    request: { temperature: 0 }
    seed: 7
${extra}compare:
  tolerances:
    ttft_ms.p50: "100%"
    tpot_ms.p50: "100%"
    e2e_ms.p50: "100%"
`;
}

/** An emulator config whose small-fast-8b has a TTFT floor of `ttftFloorMs` and 150 tokens/s (~10x slower). */
export function slowEmulatorConfig(ttftFloorMs: number): string {
  return `models:
  - id: small-fast-8b
    capacity: { ttft_floor_ms: ${ttftFloorMs}, decode_tokens_per_s: 150 }
`;
}

/** The metrics whose tolerance is turned off: tails and ITL of a few dozen requests are noise here. */
const NOISY = ['ttft_ms.p99', 'itl_ms.p50', 'itl_ms.p99', 'tpot_ms.p99', 'e2e_ms.p99'];

/** `--tolerance <metric>=off` for each noisy metric, as arguments. */
export const TAILS_OFF: readonly string[] = NOISY.flatMap((metric) => ['--tolerance', `${metric}=off`]);
