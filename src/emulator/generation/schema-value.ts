/**
 * A seeded JSON value that is valid against a JSON Schema: the structured output of `json_schema`
 * responses and the `arguments` of tool calls. Covers what structured outputs use: objects with
 * required/optional properties and additionalProperties, arrays with min/maxItems (prefixItems,
 * uniqueItems), enum, const, string (min/maxLength, common formats), number/integer (bounds,
 * multipleOf), boolean, null, type lists, anyOf/oneOf (one branch), allOf (merged) and local $ref.
 * Not covered: `pattern` (a string is produced without regard to it) and `not`.
 * Strings are built from the single-token word list, so the JSON stays ASCII.
 */
import type { Rng } from '../../util/rng.js';
import { tokenVocabulary } from '../../util/token-text.js';

type Schema = Record<string, unknown>;

/** Past this depth objects keep only required properties, arrays their minimum, anyOf its simplest branch. */
const SHALLOW_DEPTH = 6;
/** Hard stop for schemas that require themselves without end. */
const MAX_DEPTH = 24;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolvePointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s.length > 0)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node)) return undefined;
    node = node[key];
  }
  return isSchema(node) ? node : undefined;
}

class SchemaValueGenerator {
  readonly #root: Schema;
  readonly #rng: Rng;
  readonly #words: readonly string[];

  constructor(root: Schema, rng: Rng) {
    this.#root = root;
    this.#rng = rng;
    this.#words = tokenVocabulary().words.map((w) => w.trim());
  }

  word(): string {
    return this.#words[this.#rng.int(0, this.#words.length - 1)]!;
  }

  words(min: number, max: number): string {
    const count = this.#rng.int(min, max);
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(this.word());
    return out.join(' ');
  }

  /** Follows $ref and folds allOf (and a chosen anyOf/oneOf branch) into one flat schema. */
  flatten(schema: Schema, depth: number): Schema {
    let flat: Schema = schema;
    for (let hops = 0; typeof flat['$ref'] === 'string' && hops < 16; hops++) {
      const target = resolvePointer(this.#root, flat['$ref']);
      const { $ref: _ignored, ...siblings } = flat;
      flat = target ? { ...target, ...siblings } : siblings;
    }
    if (Array.isArray(flat['allOf'])) {
      const { allOf, ...rest } = flat;
      flat = (allOf as unknown[])
        .filter(isSchema)
        .reduce<Schema>((merged, part) => mergeSchemas(merged, this.flatten(part, depth)), rest);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = flat[key];
      if (Array.isArray(branches) && branches.length > 0) {
        const { [key]: _taken, ...rest } = flat;
        const chosen = this.#chooseBranch(branches.filter(isSchema), depth);
        flat = chosen ? mergeSchemas(rest, this.flatten(chosen, depth)) : rest;
      }
    }
    return flat;
  }

  #chooseBranch(branches: Schema[], depth: number): Schema | undefined {
    if (branches.length === 0) return undefined;
    if (depth < SHALLOW_DEPTH) return branches[this.#rng.int(0, branches.length - 1)];
    // Deep inside a recursive schema: take a branch that ends the recursion.
    const simple = branches.find(
      (b) => b['$ref'] === undefined && b['properties'] === undefined && b['items'] === undefined,
    );
    return simple ?? branches[0];
  }

  value(schema: unknown, depth: number): unknown {
    if (depth > MAX_DEPTH) return null;
    if (schema === true || schema === undefined) return this.words(1, 3);
    if (!isSchema(schema)) return null;
    const flat = this.flatten(schema, depth);
    if ('const' in flat) return flat['const'];
    if (Array.isArray(flat['enum']) && flat['enum'].length > 0) {
      const values = flat['enum'] as unknown[];
      return values[this.#rng.int(0, values.length - 1)];
    }
    switch (this.#pickType(flat)) {
      case 'object':
        return this.#object(flat, depth);
      case 'array':
        return this.#array(flat, depth);
      case 'integer':
        return this.#integer(flat);
      case 'number':
        return this.#number(flat);
      case 'boolean':
        return this.#rng.next() < 0.5;
      case 'null':
        return null;
      default:
        return this.#string(flat);
    }
  }

  #pickType(schema: Schema): string {
    const type = schema['type'];
    if (typeof type === 'string') return type;
    if (Array.isArray(type) && type.length > 0) {
      const types = type.filter((t): t is string => typeof t === 'string');
      const nonNull = types.filter((t) => t !== 'null');
      // Mostly a real value: `["string", "null"]` means an optional string more often than a null.
      if (nonNull.length > 0 && (nonNull.length === types.length || this.#rng.next() < 0.8)) {
        return nonNull[this.#rng.int(0, nonNull.length - 1)]!;
      }
      return types[0] ?? 'string';
    }
    if (isSchema(schema['properties']) || isSchema(schema['additionalProperties']) || Array.isArray(schema['required']))
      return 'object';
    if (schema['items'] !== undefined || Array.isArray(schema['prefixItems'])) return 'array';
    if (typeof schema['minimum'] === 'number' || typeof schema['maximum'] === 'number') return 'number';
    return 'string';
  }

  #object(schema: Schema, depth: number): Record<string, unknown> {
    const properties = isSchema(schema['properties']) ? schema['properties'] : {};
    const required = new Set(
      Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [],
    );
    const minProperties = typeof schema['minProperties'] === 'number' ? schema['minProperties'] : 0;
    const maxProperties = typeof schema['maxProperties'] === 'number' ? schema['maxProperties'] : Infinity;
    const out: Record<string, unknown> = {};
    let count = 0;
    const optional: string[] = [];
    for (const name of Object.keys(properties)) {
      if (required.has(name)) {
        out[name] = this.value(properties[name], depth + 1);
        count++;
      } else optional.push(name);
    }
    for (const name of required) {
      if (!(name in out)) {
        out[name] = this.value(true, depth + 1);
        count++;
      }
    }
    for (const name of optional) {
      const wanted = count < minProperties || (depth < SHALLOW_DEPTH && this.#rng.next() < 0.7);
      if (wanted && count < maxProperties) {
        out[name] = this.value(properties[name], depth + 1);
        count++;
      }
    }
    const extra = schema['additionalProperties'];
    // Only an explicit additionalProperties makes a map with invented keys; `{type: "object"}` alone gives {}.
    const openMap = (extra === true || isSchema(extra)) && Object.keys(properties).length === 0;
    const extraCount =
      openMap && depth < SHALLOW_DEPTH
        ? Math.max(minProperties - count, this.#rng.int(1, 2))
        : Math.max(minProperties - count, 0);
    for (let i = 0; i < extraCount && count < maxProperties && extra !== false; i++) {
      const key = `${this.word()}_${i}`;
      if (key in out) continue;
      out[key] = this.value(isSchema(extra) ? extra : true, depth + 1);
      count++;
    }
    return out;
  }

  #array(schema: Schema, depth: number): unknown[] {
    const prefix = Array.isArray(schema['prefixItems']) ? (schema['prefixItems'] as unknown[]) : [];
    const items = schema['items'];
    const minItems = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
    let maxItems = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity;
    if (items === false) maxItems = Math.min(maxItems, prefix.length);
    const low = Math.min(depth < SHALLOW_DEPTH ? Math.max(minItems, 1) : minItems, maxItems);
    const high = depth < SHALLOW_DEPTH ? Math.min(maxItems, low + 3) : low;
    const count = this.#rng.int(low, Math.max(low, high));
    const unique = schema['uniqueItems'] === true;
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (let attempt = 0; out.length < count && attempt < count * 8 + 8; attempt++) {
      const index = out.length;
      const value = this.value(index < prefix.length ? prefix[index] : items, depth + 1);
      if (unique) {
        const key = JSON.stringify(value);
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(value);
    }
    return out;
  }

  #bounds(schema: Schema): { low: number; high: number; exclusiveLow: boolean; exclusiveHigh: boolean } {
    let low = -Infinity;
    let high = Infinity;
    let exclusiveLow = false;
    let exclusiveHigh = false;
    if (typeof schema['minimum'] === 'number') low = schema['minimum'];
    if (typeof schema['maximum'] === 'number') high = schema['maximum'];
    if (typeof schema['exclusiveMinimum'] === 'number' && schema['exclusiveMinimum'] >= low) {
      low = schema['exclusiveMinimum'];
      exclusiveLow = true;
    } else if (schema['exclusiveMinimum'] === true) exclusiveLow = true;
    if (typeof schema['exclusiveMaximum'] === 'number' && schema['exclusiveMaximum'] <= high) {
      high = schema['exclusiveMaximum'];
      exclusiveHigh = true;
    } else if (schema['exclusiveMaximum'] === true) exclusiveHigh = true;
    if (low === -Infinity && high === Infinity) {
      low = 0;
      high = 100;
    } else if (low === -Infinity) low = high - 100;
    else if (high === Infinity) high = low + 100;
    else if (high - low > 1000) {
      // Bounds like the safe-integer range that schema generators emit: stay near zero, as a model would.
      if (low < 0 && high > 0) {
        low = 0;
        exclusiveLow = false;
      }
      if (high > low + 100) {
        high = low + 100;
        exclusiveHigh = false;
      }
    }
    return { low, high, exclusiveLow, exclusiveHigh };
  }

  #integer(schema: Schema): number {
    const bounds = this.#bounds(schema);
    let low = bounds.exclusiveLow ? Math.floor(bounds.low) + 1 : Math.ceil(bounds.low);
    let high = bounds.exclusiveHigh ? Math.ceil(bounds.high) - 1 : Math.floor(bounds.high);
    const step =
      typeof schema['multipleOf'] === 'number' && Number.isInteger(schema['multipleOf']) && schema['multipleOf'] > 0
        ? schema['multipleOf']
        : 1;
    low = Math.ceil(low / step);
    high = Math.floor(high / step);
    if (high < low) return low * step;
    return this.#rng.int(low, high) * step;
  }

  #number(schema: Schema): number {
    const multipleOf = schema['multipleOf'];
    if (typeof multipleOf === 'number' && multipleOf > 0) {
      const bounds = this.#bounds(schema);
      const low = Math.ceil(bounds.low / multipleOf + (bounds.exclusiveLow ? 1e-9 : 0));
      const high = Math.floor(bounds.high / multipleOf - (bounds.exclusiveHigh ? 1e-9 : 0));
      const k = high < low ? low : this.#rng.int(low, high);
      const decimals = Math.max(0, -Math.floor(Math.log10(multipleOf)) + 1);
      return Number((k * multipleOf).toFixed(Math.min(decimals, 12)));
    }
    const { low, high, exclusiveLow, exclusiveHigh } = this.#bounds(schema);
    let value = Math.round((low + (high - low) * this.#rng.next()) * 100) / 100;
    if (value < low || (exclusiveLow && value <= low) || value > high || (exclusiveHigh && value >= high))
      value = (low + high) / 2;
    return value;
  }

  #string(schema: Schema): string {
    const format = typeof schema['format'] === 'string' ? schema['format'] : '';
    const formatted = this.#formatted(format);
    if (formatted !== undefined) return formatted;
    const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
    const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
    let text = this.words(1, 4);
    while (text.length < minLength) text += ` ${this.word()}`;
    if (text.length > maxLength) text = text.slice(0, maxLength);
    return text;
  }

  #digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(this.#rng.int(0, 9));
    return out;
  }

  #hex(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += this.#rng.int(0, 15).toString(16);
    return out;
  }

  #formatted(format: string): string | undefined {
    const pad = (n: number): string => String(n).padStart(2, '0');
    const date = (): string => `20${this.#rng.int(20, 29)}-${pad(this.#rng.int(1, 12))}-${pad(this.#rng.int(1, 28))}`;
    const time = (): string =>
      `${pad(this.#rng.int(0, 23))}:${pad(this.#rng.int(0, 59))}:${pad(this.#rng.int(0, 59))}Z`;
    switch (format) {
      case 'date-time':
        return `${date()}T${time()}`;
      case 'date':
        return date();
      case 'time':
        return time();
      case 'email':
        return `${this.word()}.${this.word()}@example.com`;
      case 'hostname':
        return `${this.word()}.example.com`;
      case 'uri':
      case 'url':
        return `https://example.com/${this.word()}/${this.word()}`;
      case 'uuid':
        return `${this.#hex(8)}-${this.#hex(4)}-4${this.#hex(3)}-a${this.#hex(3)}-${this.#hex(12)}`;
      case 'ipv4':
        return `10.${this.#rng.int(0, 255)}.${this.#rng.int(0, 255)}.${this.#rng.int(1, 254)}`;
      case 'duration':
        return `PT${this.#rng.int(1, 59)}M`;
      case 'phone':
        return `+1555${this.#digits(7)}`;
      default:
        return undefined;
    }
  }
}

/** Two flat schemas as one: properties merged, required united, the rest of `b` over `a`. */
function mergeSchemas(a: Schema, b: Schema): Schema {
  const merged: Schema = { ...a, ...b };
  if (isSchema(a['properties']) || isSchema(b['properties'])) {
    merged['properties'] = {
      ...(isSchema(a['properties']) ? a['properties'] : {}),
      ...(isSchema(b['properties']) ? b['properties'] : {}),
    };
  }
  if (Array.isArray(a['required']) || Array.isArray(b['required'])) {
    merged['required'] = [
      ...new Set([...((a['required'] as unknown[]) ?? []), ...((b['required'] as unknown[]) ?? [])]),
    ];
  }
  if (a['type'] !== undefined && b['type'] === undefined) merged['type'] = a['type'];
  return merged;
}

/** A value valid against `schema` (a JSON Schema object; `$ref`s resolve against it). */
export function schemaValue(schema: Record<string, unknown>, rng: Rng): unknown {
  return new SchemaValueGenerator(schema, rng).value(schema, 0);
}

/** A small JSON object for `json_object` mode (no schema): a few word keys with simple values. */
export function freeformJsonObject(rng: Rng): Record<string, unknown> {
  const generator = new SchemaValueGenerator({}, rng);
  const out: Record<string, unknown> = {};
  const count = rng.int(2, 4);
  const kinds = ['string', 'integer', 'boolean', 'array'] as const;
  for (let i = 0; i < count; i++) {
    const kind = kinds[rng.int(0, kinds.length - 1)]!;
    const schema = kind === 'array' ? { type: 'array', items: { type: 'string' }, maxItems: 3 } : { type: kind };
    out[`${generator.word()}_${i}`] = generator.value(schema, 1);
  }
  return out;
}
