/**
 * `--set path=value` overrides, applied to the parsed YAML before validation so that an override is
 * checked exactly like the file (a key that the schema does not know is an unknown-key error). Paths use
 * dots and indices (`scenarios[0].load.rate=20`, `defaults.request.temperature=0`); values are YAML
 * scalars or flow collections (`[a, b]`, `{ dist: uniform, min: 1, max: 9 }`). Keys of `slo` and
 * `compare.tolerances` contain a dot themselves (`slo.ttft_ms.p99=500`), so the rest of such a path is one key.
 */
import { parse as parseYaml } from 'yaml';
import type { IssuePath, ProfileIssue } from './profile-issue.js';

export interface Override {
  /** The argument as given, for error messages. */
  readonly text: string;
  readonly path: IssuePath;
  readonly value: unknown;
}

const SEGMENT = /^(?:\.?([A-Za-z_][\w-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** Parses one `--set` argument; an unparsable one is an issue. */
export function parseOverride(text: string): Override | ProfileIssue {
  const eq = text.indexOf('=');
  if (eq <= 0)
    return { path: [], origin: `--set ${text}`, message: 'expected path=value, e.g. scenarios[0].load.rate=20' };
  const pathText = text.slice(0, eq).trim();
  const valueText = text.slice(eq + 1);
  const path: (string | number)[] = [];
  let rest = pathText;
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (!match || (path.length === 0 && rest.startsWith('.'))) {
      return {
        path: [],
        origin: `--set ${text}`,
        message: `cannot read the path at "${rest}"; use dots and [index], e.g. scenarios[0].load.rate`,
      };
    }
    if (match[1] !== undefined) path.push(match[1]);
    else if (match[2] !== undefined) path.push(Number(match[2]));
    else path.push(JSON.parse(match[3]!) as string);
    rest = rest.slice(match[0].length);
  }
  let value: unknown;
  try {
    // logLevel 'error': yaml would print a warning (an unknown `!tag`) on the process's stderr, beside ours.
    value = valueText.trim() === '' ? '' : parseYaml(valueText, { logLevel: 'error' });
  } catch (error) {
    return {
      path,
      origin: `--set ${text}`,
      message: `the value is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  return { text, path: joinDottedKeys(path), value };
}

function joinDottedKeys(path: (string | number)[]): (string | number)[] {
  const mapDepth = path[0] === 'slo' ? 1 : path[0] === 'compare' && path[1] === 'tolerances' ? 2 : -1;
  if (mapDepth < 0 || path.length <= mapDepth + 1) return path;
  return [...path.slice(0, mapDepth), path.slice(mapDepth).join('.')];
}

/** Applies overrides in order to a deep copy of `data`; returns the copy and the overrides that could not apply. */
export function applyOverrides(
  data: unknown,
  overrides: readonly Override[],
): { data: unknown; issues: ProfileIssue[] } {
  let root: unknown = structuredClone(data ?? {});
  const issues: ProfileIssue[] = [];
  for (const override of overrides) {
    // Applied to a copy so that an override that fails half-way leaves no half-made parents behind.
    const next = structuredClone(root);
    const problem = applyOne(next, override);
    if (problem) issues.push({ path: override.path, origin: `--set ${override.text}`, message: problem });
    else root = next;
  }
  return { data: root, issues };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys that reach Object.prototype: `--set __proto__.x=1` must not change every object of the process. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function applyOne(root: unknown, { path, value }: Override): string | null {
  if (path.length === 0) return 'empty path';
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const last = i === path.length - 1;
    if (typeof segment === 'string' && PROTOTYPE_KEYS.has(segment)) return `"${segment}" is not a profile key`;
    if (typeof segment === 'number') {
      if (!Array.isArray(node)) return `[${segment}] indexes a list, but this field is not a list`;
      if (segment >= node.length)
        return `index ${segment} is out of range (the list has ${node.length} item${node.length === 1 ? '' : 's'})`;
      if (last) node[segment] = value;
      else {
        if (node[segment] === undefined || node[segment] === null) {
          if (typeof path[i + 1] === 'number')
            return `there is no list at [${segment}] to index; set the whole list instead`;
          node[segment] = {};
        }
        node = node[segment];
      }
      continue;
    }
    if (!isRecord(node)) return `"${segment}" is a key, but its parent is not a mapping`;
    if (last) node[segment] = value;
    else {
      if (node[segment] === undefined || node[segment] === null) {
        if (typeof path[i + 1] === 'number')
          return `there is no list at "${segment}" to index; set the whole list instead, e.g. ${segment}=[...]`;
        node[segment] = {};
      }
      node = node[segment];
    }
  }
  return null;
}
