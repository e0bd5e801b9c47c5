/**
 * The entry point of profile/: a YAML file (plus `--set` overrides) -> a frozen ResolvedProfile, or one
 * InferbenchError('BAD_PROFILE') that lists every problem as `file:line:col: path.to.field: what is wrong`.
 * Pipeline: YAML with line positions -> overrides -> one schema pass plus the cross-field checks (all
 * issues collected) -> defaults and conversion -> matrix expansion -> deep freeze.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InferbenchError } from '../errors.js';
import { profileSchema } from './profile-schema.js';
import type { ResolvedProfile } from './resolved-profile.js';
import { parseYamlSource } from './yaml-source.js';
import type { YamlSource } from './yaml-source.js';
import { applyOverrides, parseOverride } from './overrides.js';
import type { Override } from './overrides.js';
import { formatIssuePath, fromZodIssues } from './profile-issue.js';
import type { IssuePath, ProfileIssue } from './profile-issue.js';
import { crossFieldChecks } from './cross-field-checks.js';
import { resolveProfileInput } from './resolve-profile.js';
import { deepFreeze } from './deep-freeze.js';
import { createTraceReader } from './sections/trace/trace-file.js';
import { appendServerMetricsFlags } from './sections/server-metrics.js';

export interface LoadProfileOptions {
  /** `--set path=value` arguments, applied in order. */
  readonly overrides?: readonly string[];
  /** `--server-metrics URL` arguments: each appends an endpoint with the defaults to target.server_metrics. */
  readonly serverMetrics?: readonly string[];
}

const HINT =
  'fix the fields listed above (`inferbench validate <profile>` checks a profile without sending anything); every key is documented in docs/profiles.md';

/** Reads and resolves a profile file. Throws InferbenchError('BAD_PROFILE') listing every problem. */
export function loadProfile(path: string, options: LoadProfileOptions = {}): ResolvedProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `cannot read profile ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        cause: error,
        hint: 'give the path of a profile YAML file, e.g. profiles/quickstart.yaml',
      },
    );
  }
  return resolveProfileText(text, path, options.overrides ?? [], dirname(resolve(path)), options.serverMetrics ?? []);
}

/**
 * Resolves profile text. `sourceName` names it in messages (and gives the default profile name);
 * relative paths in the profile resolve against `baseDir` (default: the folder of `sourceName`).
 */
export function resolveProfileText(
  text: string,
  sourceName: string,
  overrides: readonly string[] = [],
  baseDir = dirname(resolve(sourceName)),
  serverMetrics: readonly string[] = [],
): ResolvedProfile {
  const source = parseYamlSource(text, sourceName);
  if (source.syntaxErrors.length > 0) {
    const lines = source.syntaxErrors.map((e) => `  ${sourceName}:${e.line}:${e.col}: YAML: ${e.message}`);
    throw new InferbenchError('BAD_PROFILE', `${sourceName} is not valid YAML:\n${lines.join('\n')}`, {
      hint: 'check the indentation and the brackets near that line',
    });
  }
  const issues: ProfileIssue[] = [];
  const parsedOverrides: Override[] = [];
  for (const text of overrides) {
    const parsed = parseOverride(text);
    if ('value' in parsed) parsedOverrides.push(parsed);
    else issues.push(parsed);
  }
  const applied = applyOverrides(source.data, parsedOverrides);
  issues.push(...applied.issues);
  const flagged = appendServerMetricsFlags(applied.data, serverMetrics);
  const data = flagged.data;
  const result = profileSchema.safeParse(data);
  if (!result.success) issues.push(...fromZodIssues(result.error.issues, profileSchema, data));
  // Trace files are read once: by the checks, whose records the resolution takes.
  const traces = createTraceReader();
  issues.push(...crossFieldChecks(data, baseDir, traces));
  // An endpoint a --server-metrics flag added is named by the flag, not by a line of the file.
  issues.forEach((issue, i) => {
    const [a, b, index] = issue.path;
    const origin = a === 'target' && b === 'server_metrics' ? flagged.origins.get(index as number) : undefined;
    if (origin !== undefined && issue.origin === undefined) issues[i] = { ...issue, origin };
  });
  if (issues.length > 0 || !result.success) throw profileError(source, parsedOverrides, issues);
  return deepFreeze(resolveProfileInput(result.data, sourceName, baseDir, traces));
}

function profileError(
  source: YamlSource,
  overrides: readonly Override[],
  issues: readonly ProfileIssue[],
): InferbenchError {
  const placed = issues.map((issue) => {
    const origin = issue.origin ?? overrideOrigin(overrides, issue, source.data);
    const field = formatIssuePath(issue.path);
    if (origin !== undefined) return { order: [Infinity, 0], line: `${origin}: ${field}: ${issue.message}` };
    const { line, col } = source.locate(issue.path, issue.atKey);
    return { order: [line, col], line: `${source.name}:${line}:${col}: ${field}: ${issue.message}` };
  });
  placed.sort((a, b) => a.order[0]! - b.order[0]! || a.order[1]! - b.order[1]!);
  const unique = [...new Set(placed.map((p) => p.line))];
  const count = unique.length === 1 ? '1 problem' : `${unique.length} problems`;
  return new InferbenchError('BAD_PROFILE', `${source.name}: ${count}:\n${unique.map((l) => `  ${l}`).join('\n')}`, {
    hint: HINT,
  });
}

/**
 * The `--set` that wrote the field of an issue (the last one wins, as when applying): one whose path
 * leads to the field, or one that created the field (an unknown key the file does not have).
 */
function overrideOrigin(overrides: readonly Override[], issue: ProfileIssue, fileData: unknown): string | undefined {
  const isPrefix = (short: IssuePath, long: IssuePath): boolean =>
    short.length <= long.length && short.every((segment, j) => segment === long[j]);
  for (let i = overrides.length - 1; i >= 0; i--) {
    const o = overrides[i]!;
    if (isPrefix(o.path, issue.path)) return `--set ${o.text}`;
    if (isPrefix(issue.path, o.path) && !existsIn(fileData, issue.path)) return `--set ${o.text}`;
  }
  return undefined;
}

function existsIn(data: unknown, path: IssuePath): boolean {
  let node = data;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !(segment in node)) return false;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return true;
}
