/**
 * What a request's answer is checked against (measure/answer-checks.ts), from its body: each tool's
 * `parameters` schema (`tools`) and the `response_format` (`json_schema` or `json_object`). Schemas are
 * checked once per schema object, never per request: a run builds every body of a scenario from one
 * `request` object, so every request of it shares the same `tools` array and `response_format` object,
 * and the caches keyed by them build each check once per run. The compile itself (ajv, JSON Schema
 * 2020-12, `format` not checked, `$schema` ignored) is util/json-schema-compiler.ts, shared per process by
 * schema text: the profile check of `validate` or `run` has usually compiled the same schemas already.
 */
import { InferbenchError } from '../errors.js';
import { compileSchema, type ValidateFunction } from '../util/json-schema-compiler.js';

/** A compiled schema: null when the value is valid, otherwise a short reason. */
export type ValueCheck = (value: unknown) => string | null;

/** What one request's answer is checked against; built once per distinct tools / response_format. */
export interface AnswerExpectation {
  /** Tool name -> check of its parsed arguments (a tool without `parameters` takes any object); null: no tools. */
  readonly tools: ReadonlyMap<string, ValueCheck> | null;
  /** `json_schema`: the schema's check; `json_object`: any object; null: no JSON answer asked for. */
  readonly format: { readonly kind: 'json_schema' | 'json_object'; readonly check: ValueCheck } | null;
}

type Json = Record<string, unknown>;

/**
 * Whether answers to requests with these fields are checked: they declare tools or ask for a JSON
 * response_format, and ask for one choice (`n` absent or 1).
 */
export function asksForAnswerChecks(request: Readonly<Record<string, unknown>>): boolean {
  const format = request['response_format'];
  return (
    ((Array.isArray(request['tools']) && request['tools'].length > 0) ||
      (isJsonObject(format) && JSON_FORMATS.has(format['type']))) &&
    !severalChoices(request)
  );
}

/** `n` > 1: the client pools the choices' texts and calls into one record, so no answer is checked. */
function severalChoices(request: Readonly<Record<string, unknown>>): boolean {
  const n = request['n'];
  return typeof n === 'number' && n > 1;
}

const JSON_FORMATS: ReadonlySet<unknown> = new Set(['json_schema', 'json_object']);

function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first error of a failed validation, as `/path message`. */
function firstError(validate: ValidateFunction): string {
  const error = validate.errors?.[0];
  if (error === undefined) return 'does not match the schema';
  const at = error.instancePath === '' ? '/' : error.instancePath;
  return `${at} ${error.message ?? 'is invalid'}`;
}

const anyObject: ValueCheck = (value) => (isJsonObject(value) ? null : 'is not a JSON object');

/** One run's validators: its caches of checks (one per runner, shared by every group). */
export class AnswerValidators {
  readonly #schemas = new WeakMap<object, ValueCheck>();
  readonly #tools = new WeakMap<object, ReadonlyMap<string, ValueCheck>>();
  readonly #formats = new WeakMap<object, AnswerExpectation['format']>();
  /** tools array (or NONE) -> response_format object (or NONE) -> expectation, or the error of a schema that did not compile. */
  readonly #expectations = new WeakMap<object, WeakMap<object, AnswerExpectation | InferbenchError>>();
  #compilations = 0;

  /** Schema checks built so far (each distinct schema object once; compiled, or taken from the process's cache). */
  get compilations(): number {
    return this.#compilations;
  }

  /**
   * What the answer to `body` is checked against; null when the body has no tools and asks for no JSON,
   * or asks for several choices (`n` > 1: their texts and calls are pooled into one record, which no
   * schema describes). Throws BAD_PROFILE naming `where` (the scenario) when a schema does not compile;
   * the failure is cached with the expectation, so a broken schema met mid-run is compiled once, not on
   * every launch.
   */
  expectation(body: Readonly<Record<string, unknown>>, where: string): AnswerExpectation | null {
    const tools = Array.isArray(body['tools']) && body['tools'].length > 0 ? (body['tools'] as object) : null;
    const format = body['response_format'];
    const formatKey = isJsonObject(format) && JSON_FORMATS.has(format['type']) ? format : null;
    if ((tools === null && formatKey === null) || severalChoices(body)) return null;
    const toolsKey = tools ?? NONE;
    let byFormat = this.#expectations.get(toolsKey);
    if (byFormat === undefined) {
      byFormat = new WeakMap();
      this.#expectations.set(toolsKey, byFormat);
    }
    const cached = byFormat.get(formatKey ?? NONE);
    if (cached instanceof InferbenchError) throw cached;
    if (cached !== undefined) return cached;
    let expectation: AnswerExpectation;
    try {
      expectation = {
        tools: tools === null ? null : this.#toolChecks(tools as unknown[], where),
        format: formatKey === null ? null : this.#formatCheck(formatKey, where),
      };
    } catch (error) {
      if (error instanceof InferbenchError) byFormat.set(formatKey ?? NONE, error);
      throw error;
    }
    byFormat.set(formatKey ?? NONE, expectation);
    return expectation;
  }

  #toolChecks(tools: unknown[], where: string): ReadonlyMap<string, ValueCheck> {
    const cached = this.#tools.get(tools);
    if (cached !== undefined) return cached;
    const checks = new Map<string, ValueCheck>();
    tools.forEach((tool, i) => {
      const fn = isJsonObject(tool) ? tool['function'] : undefined;
      if (!isJsonObject(fn) || typeof fn['name'] !== 'string') return;
      const parameters = fn['parameters'];
      checks.set(
        fn['name'],
        isJsonObject(parameters)
          ? this.#schemaCheck(parameters, `${where}: request.tools[${i}].function.parameters`)
          : anyObject,
      );
    });
    this.#tools.set(tools, checks);
    return checks;
  }

  #formatCheck(format: Json, where: string): AnswerExpectation['format'] {
    if (this.#formats.has(format)) return this.#formats.get(format) ?? null;
    let check: AnswerExpectation['format'] = null;
    if (format['type'] === 'json_object') check = { kind: 'json_object', check: anyObject };
    else if (format['type'] === 'json_schema') {
      const spec = format['json_schema'];
      const schema = isJsonObject(spec) ? spec['schema'] : undefined;
      check = {
        kind: 'json_schema',
        check: isJsonObject(schema)
          ? this.#schemaCheck(schema, `${where}: request.response_format.json_schema.schema`)
          : anyObject,
      };
    }
    this.#formats.set(format, check);
    return check;
  }

  #schemaCheck(schema: Json, field: string): ValueCheck {
    const cached = this.#schemas.get(schema);
    if (cached !== undefined) return cached;
    let validate: ValidateFunction;
    try {
      validate = compileSchema(schema);
    } catch (error) {
      throw new InferbenchError(
        'BAD_PROFILE',
        `${field}: not a JSON Schema the answer can be checked against: ${(error as Error).message}`,
        { hint: 'fix the schema (JSON Schema 2020-12), or remove it', cause: error },
      );
    }
    this.#compilations += 1;
    const check: ValueCheck = (value) => (validate(value) ? null : firstError(validate));
    this.#schemas.set(schema, check);
    return check;
  }
}

/** The WeakMap key standing for "absent". */
const NONE: object = Object.freeze({});
