/**
 * The rules of the group dimensions `reasoning_efforts` and `mix` that a per-field schema cannot express:
 * an effort set twice (the list and request.reasoning_effort), class names unique, no mix in a sweep (its
 * phases run one schedule each) (a class's prompt and request: workload-checks.ts); and the first parts of the group
 * keys a profile makes ("scenario[.class][.effort]"), for threshold keys, which must be unique.
 */
import { mergeScenario } from '../merge-scenario.js';
import type { ProfileIssue } from '../profile-issue.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const names = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.map((item) => (isRecord(item) ? item.name : item)).filter((n) => typeof n === 'string')
    : [];

/** Problems of one scenario's efforts and mix (after defaults). */
export function checkGroupDimensions(
  defaults: unknown,
  scenario: Record<string, unknown>,
  index: number,
): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  const merged = mergeScenario(defaults, scenario, index);
  const f = merged.fields;
  const efforts = Array.isArray(f.reasoning_efforts) ? f.reasoning_efforts : null;
  const mix = Array.isArray(f.mix) ? f.mix : null;
  efforts?.forEach((effort, i) => {
    if (efforts.indexOf(effort) !== i)
      issues.push({ path: [...merged.pathOf('reasoning_efforts'), i], message: `"${String(effort)}" is listed twice` });
  });
  const twice = 'set reasoning_efforts (one group per effort) or reasoning_effort, not both';
  if (efforts && isRecord(f.request) && f.request.reasoning_effort !== undefined)
    issues.push({ path: merged.pathOf('request', 'reasoning_effort'), atKey: true, message: twice });
  if (mix === null) return issues;
  const mixPath = merged.pathOf('mix');
  const load = isRecord(f.load) ? f.load : {};
  if (load.mode === 'sweep')
    issues.push({
      path: mixPath,
      atKey: true,
      message: 'a sweep cannot run a mix (each of its phases is one schedule per group); sweep each class apart',
    });
  const seen = new Map<string, number>();
  mix.forEach((item, i) => {
    if (!isRecord(item)) return;
    if (typeof item.name === 'string') {
      const first = seen.get(item.name);
      if (first !== undefined)
        issues.push({
          path: [...mixPath, i, 'name'],
          message: `duplicate class name "${item.name}" (also mix[${first}])`,
        });
      else seen.set(item.name, i);
    }
    if (efforts && isRecord(item.request) && item.request.reasoning_effort !== undefined)
      issues.push({ path: [...mixPath, i, 'request', 'reasoning_effort'], atKey: true, message: twice });
  });
  return issues;
}

/**
 * The first part of every group key the profile makes -> its scenario's index: the scenario's name, or with
 * a mix or efforts "name.class", "name.effort", "name.class.effort" (a mix's groups all have a class).
 * Two scenarios making the same first part ("a.b" and scenario "a" with class "b") are reported.
 */
export function groupKeyHeads(
  defaults: unknown,
  scenarios: readonly unknown[],
): { heads: Map<string, number>; issues: ProfileIssue[] } {
  const heads = new Map<string, number>();
  const issues: ProfileIssue[] = [];
  scenarios.forEach((scenario, i) => {
    if (!isRecord(scenario) || typeof scenario.name !== 'string') return;
    const f = mergeScenario(defaults, scenario, i).fields;
    const classes = names(f.mix);
    const efforts = names(f.reasoning_efforts);
    const withClass = classes.length > 0 ? classes.map((c) => `${scenario.name}.${c}`) : [scenario.name];
    const all = efforts.length > 0 ? withClass.flatMap((head) => efforts.map((e) => `${head}.${e}`)) : withClass;
    for (const head of new Set(all)) {
      const first = heads.get(head);
      // Two scenarios of one name are reported as such (cross-field-checks.ts).
      const sameName = first !== undefined && (scenarios[first] as Record<string, unknown>).name === scenario.name;
      if (first !== undefined && first !== i && !sameName)
        issues.push({
          path: ['scenarios', i, 'name'],
          message: `its groups' keys start with "${head}", as those of scenarios[${first}] do; rename one`,
        });
      else heads.set(head, i);
    }
  });
  return { heads, issues };
}

/** For a threshold key naming a scenario whose groups have a class or effort: the heads its keys start with. */
export function headHint(group: string, heads: ReadonlyMap<string, number>): string {
  const head = group.split('/')[0]!;
  const longer = [...heads.keys()].filter((h) => h.startsWith(`${head}.`));
  return longer.length === 0 ? '' : ` (its group keys start with ${longer.map((h) => `"${h}"`).join(', ')})`;
}
