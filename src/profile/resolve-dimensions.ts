/**
 * A scenario's extra group dimensions, resolved: `reasoning_efforts` (one group per effort) and `mix`
 * (weighted request classes). A class's prompt, request and request_extra merge over the scenario's one
 * level deep, the class winning per field, and are then resolved exactly as a scenario's are (the caller
 * passes its own resolver, so a class's prompt gets the same defaults and paths as the scenario's).
 */
import type { ProfileInput, ScenarioFieldsInput } from './profile-schema.js';
import type { MixClassSpec, ResolvedScenario } from './resolved-profile.js';

type MixInput = NonNullable<ProfileInput['scenarios'][number]['mix']>;

/** Resolves merged scenario fields the way the scenario itself is resolved. */
export type ScenarioResolver = (fields: ScenarioFieldsInput) => ResolvedScenario;

/** `scenario` with its efforts and mix classes, when the merged fields set them (absent otherwise). */
export function withGroupDimensions(
  scenario: ResolvedScenario,
  fields: ScenarioFieldsInput,
  resolveFields: ScenarioResolver,
): ResolvedScenario {
  const efforts = fields.reasoning_efforts;
  const mix = fields.mix;
  return {
    ...scenario,
    ...(efforts && efforts.length > 0 ? { reasoningEfforts: [...efforts] } : {}),
    ...(mix && mix.length > 0 ? { mix: resolveMix(mix, fields, resolveFields) } : {}),
  };
}

function resolveMix(mix: MixInput, fields: ScenarioFieldsInput, resolveFields: ScenarioResolver): MixClassSpec[] {
  const total = mix.reduce((sum, item) => sum + item.weight, 0);
  return mix.map((item) => {
    const merged: ScenarioFieldsInput = {
      ...fields,
      prompt: { ...fields.prompt, ...item.prompt },
      request: { ...fields.request, ...item.request },
      request_extra: { ...fields.request_extra, ...item.request_extra },
    };
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
