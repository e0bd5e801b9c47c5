/**
 * How `defaults` combine with a scenario: the mapping keys (request, request_extra, prompt, timeouts, retry, encoding,
 * session, tool_loop)
 * merge one level deep, the scenario's value winning per field; every other key (load included, whose
 * fields depend on its mode) is taken whole from the scenario when it sets it. Works on unvalidated data
 * too, because the cross-field checks run beside schema validation, not after it.
 */
import type { IssuePath } from './profile-issue.js';

const MERGED_KEYS = new Set([
  'request',
  'request_extra',
  'prompt',
  'timeouts',
  'retry',
  'encoding',
  'session',
  'tool_loop',
]);

export interface MergedScenario {
  readonly fields: Readonly<Record<string, unknown>>;
  /** Path of the field as written (the scenario's or defaults'), for error messages. */
  pathOf(key: string, ...rest: (string | number)[]): IssuePath;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergeScenario(defaults: unknown, scenario: unknown, scenarioIndex: number): MergedScenario {
  const base = isRecord(defaults) ? defaults : {};
  const own = isRecord(scenario) ? scenario : {};
  const fields: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(own)) {
    fields[key] = MERGED_KEYS.has(key) && isRecord(value) && isRecord(base[key]) ? { ...base[key], ...value } : value;
  }
  return {
    fields,
    pathOf(key, ...rest) {
      const ownValue = own[key];
      const fromScenario =
        ownValue !== undefined &&
        (rest.length === 0 ||
          !isRecord(ownValue) ||
          (ownValue as Record<string, unknown>)[String(rest[0])] !== undefined);
      return fromScenario || base[key] === undefined
        ? ['scenarios', scenarioIndex, key, ...rest]
        : ['defaults', key, ...rest];
    },
  };
}
