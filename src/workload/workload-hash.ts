/**
 * Stable SHA-256 hashes of what a profile sends: per scenario its name, api, models, tiers, request fields,
 * request_extra, prompt spec and seed (not its load, limits or timeouts), with a dataset represented by
 * its content hash rather than its path. Two runs with equal hashes sent the same requests, so their numbers are comparable.
 * A second hash leaves the model names out: two deployments that name one model differently (vLLM's
 * `llama`, SGLang's `llama-3`) were sent the same workload when it matches, which `compare --pair` checks.
 * A target.tokenizer sizes the prompts, so its content hash is part of both (only when set: the hashes of
 * profiles without one stay what they were).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MixClassSpec, ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';
import { hashedDataset } from './dataset/dataset-hash.js';
import { SYNTHETIC_IMAGE_VERSION } from './synthetic-image.js';

/** The hash of everything a profile sends, model names included (summary.json `workload_hash`). */
export function workloadHash(profile: ResolvedProfile): string {
  const scenarios = profile.scenarios.map((scenario) => ({ ...hashedScenario(scenario), models: scenario.models }));
  return createHash('sha256')
    .update(canonicalJson({ version: 1, scenarios, tokenizer: tokenizerHash(profile) }))
    .digest('hex');
}

/**
 * The same hash with every model name left out (summary.json `workload_hash_without_models`): equal when
 * two runs sent the same request fields, prompt lengths, seeds, tiers and datasets to models named
 * differently. The synthetic prompt words are seeded per group (model included), so paired groups get
 * prompts of the same token lengths but other words.
 */
export function workloadHashWithoutModels(profile: ResolvedProfile): string {
  const scenarios = profile.scenarios.map(hashedScenario);
  return createHash('sha256')
    .update(canonicalJson({ version: 1, without: 'models', scenarios, tokenizer: tokenizerHash(profile) }))
    .digest('hex');
}

function tokenizerHash(profile: ResolvedProfile): string | undefined {
  return profile.target.tokenizer ? fileHash(profile.target.tokenizer) : undefined;
}

function hashedScenario(scenario: ResolvedScenario): Record<string, unknown> {
  return {
    name: scenario.name,
    // The API (absent for chat: hashes stay as they were): another API is another request.
    api: scenario.api,
    // inputs_per_request (embeddings): absent when one, so hashes stay as they were.
    inputsPerRequest: scenario.inputsPerRequest,
    tiers: scenario.tiers,
    request: scenario.request,
    // Only when set, so the hashes of profiles without request_extra stay what they were.
    request_extra: Object.keys(scenario.requestExtra ?? {}).length > 0 ? scenario.requestExtra : undefined,
    prompt: {
      ...scenario.prompt,
      dataset: scenario.prompt.dataset
        ? hashedDataset(scenario.prompt.dataset, fileHash(scenario.prompt.dataset.path))
        : null,
      // The image kinds and the version of their pixels and encoders (only when set: other hashes stay as they were).
      images: scenario.prompt.images ? { kinds: scenario.prompt.images, version: SYNTHETIC_IMAGE_VERSION } : undefined,
    },
    seed: scenario.seed,
    // reasoning_efforts and a mix's classes (absent otherwise: hashes stay as they were).
    reasoning_efforts: scenario.reasoningEfforts,
    mix: scenario.mix?.map((mixClass) => hashedClass(scenario, mixClass)),
    // session and tool_loop decide the user side of every conversation (absent otherwise: hashes stay as they were).
    session: scenario.session,
    tool_loop: scenario.toolLoop,
    // load mode trace: the file's content and how it is read decide every request's lengths (absent otherwise).
    trace: traceHashPart(scenario),
  };
}

function traceHashPart(scenario: ResolvedScenario): Record<string, unknown> | undefined {
  const trace = scenario.load.mode === 'rate' ? scenario.load.trace : undefined;
  if (trace === undefined) return undefined;
  const { format, timestampUnit, startMs } = trace;
  // The hash of the file as it was read when the profile was resolved (the records replayed are that file's).
  return { sha256: trace.records.sha256, format, timestamp_unit: timestampUnit, start_ms: startMs };
}

/** A mix class as its scenario's fields are hashed: its share, request fields and prompt (its dataset by content). */
function hashedClass(scenario: ResolvedScenario, mixClass: MixClassSpec): Record<string, unknown> {
  const { prompt, requestExtra, request } = mixClass;
  const hashed = hashedScenario({ ...scenario, prompt, request, requestExtra, mix: [] });
  return {
    name: mixClass.name,
    share: mixClass.share,
    request: hashed.request,
    request_extra: hashed.request_extra,
    prompt: hashed.prompt,
    // Only with a session: its later user turns follow the class's input_tokens (absent otherwise: hashes stay).
    session: mixClass.session,
  };
}

function fileHash(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'unreadable';
  }
}

/** JSON with object keys sorted, so the hash does not depend on the order keys were written in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
