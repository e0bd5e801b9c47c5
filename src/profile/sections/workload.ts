/**
 * The cross-field rules of what a scenario sends (prompt, request, request_extra, session, tool_loop), run
 * once on the scenario or, when it has a `mix`, once per class on the class's fields merged over the
 * scenario's (one level deep, the class winning, as sections/dimensions.ts merges them): every request of a
 * mix is sent as some class, so a class's merged fields must pass the same rules the scenario's do, with
 * paths rooted at `scenarios[i].mix[k]` where the class wrote the field. The rules of the other sections
 * (dataset, images, prefixes, conversation, answer schemas) are given by the caller (cross-field-checks.ts),
 * so this section imports none of them.
 */
import { CHAT_REQUEST_PARAMETERS } from '../../protocol/chat.js';
import type { MergedScenario } from '../merge-scenario.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';

/** request_extra carries only what the spec does not list: a spec field there would skip its checks. */
const SPEC_REQUEST_FIELDS = new Set<string>([...CHAT_REQUEST_PARAMETERS, 'stream_options']);
const BUILT_FIELDS = new Set(['model', 'messages', 'service_tier']);
/** The keys a mix class may set, merged over the scenario's one level deep. */
const CLASS_KEYS = ['prompt', 'request', 'request_extra'] as const;

type PathOf = (key: string, ...rest: (string | number)[]) => IssuePath;

/** One section's rules of a set of merged fields (a scenario's, or a class's over its scenario's). */
export type SentFieldsCheck = (
  fields: Readonly<Record<string, unknown>>,
  pathOf: PathOf,
  context: { readonly baseDir: string; readonly inMix: boolean },
) => ProfileIssue[];

/** The rules the caller adds: on each set of merged fields, and on a mix class's own `request`. */
export interface WorkloadChecks {
  readonly fields: readonly SentFieldsCheck[];
  readonly classRequest: (request: unknown, path: IssuePath) => ProfileIssue[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The rules of one set of merged fields (a scenario's, or a class's over its scenario's). */
function checkSentFields(
  f: Readonly<Record<string, unknown>>,
  pathOf: PathOf,
  context: { readonly baseDir: string; readonly inMix: boolean },
  checks: WorkloadChecks,
): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  const prompt = isRecord(f.prompt) ? f.prompt : {};
  for (const key of ['input_tokens', 'output_tokens']) {
    const dist = prompt[key];
    if (isRecord(dist) && typeof dist.min === 'number' && typeof dist.max === 'number' && dist.min > dist.max)
      issues.push({ path: pathOf('prompt', key), message: `min (${dist.min}) is greater than max (${dist.max})` });
  }
  for (const check of checks.fields) issues.push(...check(f, pathOf, context));
  if (isRecord(f.request_extra)) {
    for (const key of Object.keys(f.request_extra)) {
      const message = BUILT_FIELDS.has(key)
        ? `${key} is set by the profile (models, prompt, tiers), not by request_extra`
        : SPEC_REQUEST_FIELDS.has(key)
          ? `${key} is a field of the API spec: set it in request, where it is checked`
          : null;
      if (message !== null) issues.push({ path: pathOf('request_extra', key), atKey: true, message });
    }
  }
  return issues;
}

/** A class's fields merged over the scenario's, and the path of each as written (the class's, else the scenario's). */
function classView(merged: MergedScenario, item: Record<string, unknown>, classPath: IssuePath) {
  const fields: Record<string, unknown> = { ...merged.fields };
  for (const key of CLASS_KEYS) {
    const own = item[key];
    if (isRecord(own)) fields[key] = { ...(isRecord(fields[key]) ? fields[key] : {}), ...own };
  }
  const pathOf: PathOf = (key, ...rest) => {
    const own = item[key];
    const fromClass =
      isRecord(own) &&
      (CLASS_KEYS as readonly string[]).includes(key) &&
      (rest.length === 0 || own[rest[0]!] !== undefined);
    return fromClass ? [...classPath, key, ...rest] : merged.pathOf(key, ...rest);
  };
  return { fields, pathOf };
}

const startsWith = (path: IssuePath, prefix: IssuePath): boolean => prefix.every((part, i) => path[i] === part);

/**
 * The rules of what a scenario sends: on its own fields, or with a mix on each class's. A problem at the
 * scenario's own field that only some classes have names them; one every class has is reported once.
 */
export function checkScenarioWorkload(
  merged: MergedScenario,
  index: number,
  baseDir: string,
  checks: WorkloadChecks,
): ProfileIssue[] {
  const mix = Array.isArray(merged.fields.mix) ? merged.fields.mix : [];
  const classes = mix.flatMap((item, k) => (isRecord(item) ? [{ item, k }] : []));
  if (classes.length === 0) return checkSentFields(merged.fields, merged.pathOf, { baseDir, inMix: false }, checks);
  const found = new Map<string, { issue: ProfileIssue; classes: string[] }>();
  for (const { item, k } of classes) {
    const classPath: IssuePath = ['scenarios', index, 'mix', k];
    const view = classView(merged, item, classPath);
    const issues = [
      ...checkSentFields(view.fields, view.pathOf, { baseDir, inMix: true }, checks),
      ...checks.classRequest(item.request, [...classPath, 'request']),
    ];
    for (const issue of issues) {
      const id = JSON.stringify([issue.path, issue.message]);
      const entry = found.get(id) ?? { issue, classes: [] };
      if (!startsWith(issue.path, classPath))
        entry.classes.push(typeof item.name === 'string' ? item.name : `mix[${k}]`);
      found.set(id, entry);
    }
  }
  return [...found.values()].map(({ issue, classes: named }) =>
    named.length === 0 || named.length === classes.length
      ? issue
      : { ...issue, message: `${issue.message} (in mix class ${named.map((n) => `"${n}"`).join(', ')})` },
  );
}
