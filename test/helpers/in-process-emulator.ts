/**
 * Emulators in the test's own process for tests that make whole runs. A run without a target starts the
 * embedded emulator as a child from dist/ (a node start and a tokenizer load, seconds on a busy machine,
 * per run); a test whose subject is not that child gives its run `--base-url` to one of these instead
 * (`target:` of runCliInProcess), so the tokenizer loads once per test file.
 *
 * Each `start()` is a fresh server on 127.0.0.1 port 0, as the embedded child was fresh for each run: no
 * rate-limit bucket, prompt-cache entry, in-flight load or request number carries over from an earlier
 * run of the file (a second run of one test sees what it saw with its own child). Starting one costs a
 * listen once the first has loaded the tokenizer. Every emulator started is closed after the file's tests.
 * Like the child, it accepts only its own throwaway keys.
 *
 *     const emulators = useInProcessEmulators();
 *     const result = await runCliInProcess(['run', profile], { cwd, target: await emulators.start() });
 */
import { resolve } from 'node:path';
import { afterAll } from 'vitest';
import { builtinCatalog } from '../../src/emulator/catalog/builtin-catalog.js';
import type { Catalog } from '../../src/emulator/catalog/catalog.js';
import { loadCatalogConfig } from '../../src/emulator/catalog/config-file.js';
import { createEmulator, type Emulator } from '../../src/emulator/emulator.js';

/** What a run needs to use an emulator as its target: the URL for --base-url, the keys for its env. */
export interface RunTarget {
  /** Base URL without /v1. */
  readonly url: string;
  /** Sent as INFERENCE_API_KEY. */
  readonly apiKey: string;
  /** Sent as INFERENCE_MANAGEMENT_KEY (for `models: { endpoints_of: local }`). */
  readonly managementKey: string;
}

export interface InProcessEmulators {
  /**
   * A fresh emulator with the built-in catalog, or the catalog of `configPath` (what a profile's
   * target.emulator_config gives the embedded one).
   */
  start(options?: { readonly configPath?: string }): Promise<RunTarget>;
}

export const EMULATOR_API_KEY = 'ib-test-in-process-key';
export const EMULATOR_MANAGEMENT_KEY = 'ib-test-in-process-management-key';

/**
 * The built-in catalog with every model decoding `factor` times faster (ids, reasoning, limits and the rest
 * as built in), for tests whose subject is what is sent, not when: a 400-token answer of a reasoning model
 * takes tens of ms instead of seconds of simulated decoding.
 */
export function fastBuiltinCatalog(factor = 50): Catalog {
  const builtin = builtinCatalog();
  const models = builtin.models.map((model) => ({
    ...model,
    capacity: { ...model.capacity, decodeTokensPerS: model.capacity.decodeTokensPerS * factor },
  }));
  return { ...builtin, models };
}

/**
 * The built-in catalog (local deployment) with the capacity of some models changed, e.g. small-fast-8b cut
 * to 2 slots without jitter so a known number of users makes a queue of known length.
 */
export function catalogWithCapacity(
  capacities: Readonly<Record<string, Partial<Catalog['models'][number]['capacity']>>>,
): Catalog {
  const catalog = builtinCatalog('local');
  const models = catalog.models.map((model) => {
    const changed = capacities[model.id];
    return changed === undefined ? model : { ...model, capacity: { ...model.capacity, ...changed } };
  });
  return { ...catalog, models };
}

/** An emulator in this process with `catalog`, and what a run needs to reach it; close it after. */
export async function startEmulatorWith(catalog: Catalog): Promise<{ emulator: Emulator; target: RunTarget }> {
  const emulator = await createEmulator({
    apiKeys: [EMULATOR_API_KEY],
    managementKeys: [EMULATOR_MANAGEMENT_KEY],
    catalog,
  });
  return { emulator, target: { url: emulator.url, apiKey: EMULATOR_API_KEY, managementKey: EMULATOR_MANAGEMENT_KEY } };
}

/** Registers an afterAll that closes every emulator the file started. */
export function useInProcessEmulators(): InProcessEmulators {
  const started: Emulator[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((emulator) => emulator.close()));
  });
  return {
    async start(options = {}) {
      const emulator = await createEmulator({
        apiKeys: [EMULATOR_API_KEY],
        managementKeys: [EMULATOR_MANAGEMENT_KEY],
        ...(options.configPath === undefined ? {} : { catalog: loadCatalogConfig(resolve(options.configPath)) }),
      });
      started.push(emulator);
      return { url: emulator.url, apiKey: EMULATOR_API_KEY, managementKey: EMULATOR_MANAGEMENT_KEY };
    },
  };
}
