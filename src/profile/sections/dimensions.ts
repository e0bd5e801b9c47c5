/**
 * A scenario's extra group dimensions: `reasoning_efforts` (one group per effort, the spec's values, a
 * misspelt one naming the closest) and `mix` (weighted request classes). Here: the efforts' schema; the
 * rules a per-field schema cannot express (an effort set twice, the list and request.reasoning_effort;
 * class names unique; no mix in a sweep, whose phases run one schedule each; a class's prompt and request
 * are checked by sections/workload.ts); the first parts of the group keys a profile makes
 * ("scenario[.class][.effort]"), for threshold keys, which must be unique; the resolution (a class's
 * prompt, request and request_extra merge over the scenario's one level deep, the class winning per field,
 * and are then resolved exactly as a scenario's are, by the caller's own resolver); and the `validate` lines.
 */
import { z } from 'zod';
import { REASONING_EFFORTS, type ReasoningEffort } from '../../protocol/chat.js';
import { editDistance } from '../key-suggestions.js';
import { mergeScenario } from '../merge-scenario.js';
import type { ProfileIssue } from '../profile-issue.js';
import type { MixClassSpec, ResolvedScenario } from '../resolved-profile.js';

// ---- schema

/** The error for a value that is not one of the spec's efforts, with the closest one when it is close. */
export function unknownEffortMessage(value: unknown): string {
  const text = String(value);
  const best = [...REASONING_EFFORTS].sort(
    (a, b) => editDistance(text.toLowerCase(), a) - editDistance(text.toLowerCase(), b),
  )[0]!;
  // Within two edits: a swapped pair of letters (hihg) is two.
  const close = editDistance(text.toLowerCase(), best) <= 2;
  return `"${text}" is not a reasoning_effort${close ? ` (did you mean "${best}"?)` : ''}; expected one of ${REASONING_EFFORTS.join(', ')}`;
}

export const reasoningEffortsSchema = z
  .array(z.enum(REASONING_EFFORTS, { error: (issue) => unknownEffortMessage(issue.input) }))
  .min(1)
  .meta({
    description:
      'One group per model x tier x effort, each sending its reasoning_effort (low, medium, high, none; which a model takes depends on the model). Omitted: none sent.',
  });

// ---- checks

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

// ---- resolution

/** A class of `mix` as validated (its prompt and request are the scenario's own kinds of value). */
interface MixClassInput {
  readonly name: string;
  readonly weight: number;
  readonly prompt?: object;
  readonly request?: object;
  readonly request_extra?: object;
}

/** The scenario fields the dimensions read (a scenario's validated fields, merged over defaults). */
interface DimensionFields {
  readonly reasoning_efforts?: readonly ReasoningEffort[];
  readonly mix?: readonly MixClassInput[];
  readonly prompt?: object;
  readonly request?: object;
  readonly request_extra?: object;
}

/** Resolves merged scenario fields the way the scenario itself is resolved. */
export type ScenarioResolver<F> = (fields: F) => ResolvedScenario;

/** `scenario` with its efforts and mix classes, when the merged fields set them (absent otherwise). */
export function withGroupDimensions<F extends DimensionFields>(
  scenario: ResolvedScenario,
  fields: F,
  resolveFields: ScenarioResolver<F>,
): ResolvedScenario {
  const efforts = fields.reasoning_efforts;
  const mix = fields.mix;
  return {
    ...scenario,
    ...(efforts && efforts.length > 0 ? { reasoningEfforts: [...efforts] } : {}),
    ...(mix && mix.length > 0 ? { mix: resolveMix(mix, fields, resolveFields) } : {}),
  };
}

function resolveMix<F extends DimensionFields>(
  mix: readonly MixClassInput[],
  fields: F,
  resolveFields: ScenarioResolver<F>,
): MixClassSpec[] {
  const total = mix.reduce((sum, item) => sum + item.weight, 0);
  return mix.map((item) => {
    // The class's item has the same kinds of prompt, request and request_extra as the scenario (profile-schema.ts).
    const merged = {
      ...fields,
      prompt: { ...fields.prompt, ...item.prompt },
      request: { ...fields.request, ...item.request },
      request_extra: { ...fields.request_extra, ...item.request_extra },
    } as F;
    const resolved = resolveFields(merged);
    return {
      name: item.name,
      share: item.weight / total,
      prompt: resolved.prompt,
      request: resolved.request,
      requestExtra: resolved.requestExtra,
      ...(resolved.session ? { session: resolved.session } : {}),
    };
  });
}

// ---- validate

const LABEL_WIDTH = 11;
const row = (label: string, value: string): string => `  ${label.padEnd(LABEL_WIDTH)}${value}\n`;

/** `formatPrompt` describes a scenario's prompt (format-plan.ts's); empty when the scenario has neither. */
export function formatDimensions(s: ResolvedScenario, formatPrompt: (scenario: ResolvedScenario) => string): string {
  let out = '';
  if (s.reasoningEfforts?.length)
    out += row('efforts', `${s.reasoningEfforts.join(', ')} (one group each, sending reasoning_effort)`);
  if (s.mix?.length) {
    out += row('mix', 'one schedule per model x tier x effort; each request picks a class by weight:');
    for (const mixClass of s.mix) {
      const share = `${Math.round(mixClass.share * 1000) / 10}%`;
      const prompt = formatPrompt({ ...s, prompt: mixClass.prompt });
      out += row('', `${mixClass.name} ${share}: ${prompt}; request ${JSON.stringify(mixClass.request)}`);
      if (Object.keys(mixClass.requestExtra).length > 0)
        out += row('', `  extra ${JSON.stringify(mixClass.requestExtra)}`);
    }
  }
  return out;
}
