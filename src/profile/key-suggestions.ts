/**
 * "Did you mean" for unknown keys: finds the keys the schema allows at a path (walking the zod schema's
 * definitions) and the closest one to what was written, so `duraton` says `did you mean "duration"?`.
 */
import type { z } from 'zod';

/** A field's path (profile-issue.ts's IssuePath, restated: that file imports this one). */
type IssuePath = readonly (string | number)[];

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly valueType?: z.ZodType;
  readonly in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Object schemas reachable at `path` (unions give the options whose literal fields match the data). */
function objectsAt(schema: z.ZodType, path: IssuePath, data: unknown): Def[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return objectsAt(def.innerType!, path, data);
    case 'pipe':
      return objectsAt(def.in!, path, data);
    case 'union': {
      const all = def.options!.flatMap((option) => objectsAt(option, path, data));
      if (path.length > 0) return all;
      const matching = all.filter((object) => literalsMatch(object, data));
      return matching.length > 0 ? matching : all;
    }
    default:
      break;
  }
  if (path.length === 0) return def.type === 'object' ? [def] : [];
  const [head, ...rest] = path;
  const child = isRecord(data) || Array.isArray(data) ? (data as Record<string | number, unknown>)[head!] : undefined;
  if (def.type === 'object') {
    const field = def.shape![String(head)];
    return field ? objectsAt(field, rest, child) : [];
  }
  if (def.type === 'array') return objectsAt(def.element!, rest, child);
  if (def.type === 'record') return objectsAt(def.valueType!, rest, child);
  return [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when every literal or enum field of the object schema (a discriminator) accepts the data's value. */
function literalsMatch(object: Def, data: unknown): boolean {
  if (!isRecord(data)) return true;
  return Object.entries(object.shape ?? {}).every(([key, field]) => {
    const fieldDef = defOf(field) as Def & { values?: readonly unknown[]; entries?: Record<string, unknown> };
    if (fieldDef.type === 'literal') return fieldDef.values!.includes(data[key]);
    if (fieldDef.type === 'enum' && key === 'dist') return Object.values(fieldDef.entries ?? {}).includes(data[key]);
    return true;
  });
}

/** Keys allowed at `parentPath`, in schema order. */
export function allowedKeys(schema: z.ZodType, parentPath: IssuePath, data: unknown): string[] {
  return [...new Set(objectsAt(schema, parentPath, data).flatMap((def) => Object.keys(def.shape ?? {})))];
}

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The message for an unknown key: the closest allowed key, or the list of allowed keys. */
export function unknownKeyMessage(schema: z.ZodType, parentPath: IssuePath, key: string, data: unknown): string {
  const keys = allowedKeys(schema, parentPath, data);
  if (keys.length === 0) return 'unknown key';
  const scored = keys.map((k) => ({ k, d: editDistance(key.toLowerCase(), k) })).sort((a, b) => a.d - b.d);
  const best = scored[0]!;
  if (best.d <= Math.max(1, Math.floor(best.k.length / 3))) return `unknown key (did you mean "${best.k}"?)`;
  return `unknown key; expected one of ${keys.join(', ')}`;
}
