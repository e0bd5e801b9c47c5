/**
 * A stable SHA-256 of what a profile sends: per scenario its name, models, tiers, request fields, prompt
 * spec and seed (not its load, limits or timeouts), with a dataset represented by its content hash rather
 * than its path. Two runs with equal hashes sent the same requests, so their numbers are comparable.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ResolvedProfile } from '../profile/resolved-profile.js';

export function workloadHash(profile: ResolvedProfile): string {
  const scenarios = profile.scenarios.map((scenario) => ({
    name: scenario.name,
    models: scenario.models,
    tiers: scenario.tiers,
    request: scenario.request,
    prompt: { ...scenario.prompt, dataset: scenario.prompt.dataset ? { field: scenario.prompt.dataset.field, sha256: fileHash(scenario.prompt.dataset.path) } : null },
    seed: scenario.seed,
  }));
  return createHash('sha256').update(canonicalJson({ version: 1, scenarios })).digest('hex');
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
