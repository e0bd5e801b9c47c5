/**
 * The one way inferbench compiles a JSON Schema that an answer is checked against (tool `parameters`,
 * `response_format.json_schema.schema`): ajv, JSON Schema 2020-12, not strict (schemas written for models
 * carry descriptions and keywords ajv does not know), `format` not checked (no format vocabulary at run
 * time), `$schema` ignored (the keywords structured outputs use mean the same in draft-07 and 2020-12), and
 * `$id`s not registered (two tools may reuse one). Used by the profile check (does it compile?) and by the
 * answer checks (measure/answer-validators.ts), so both agree on what a schema means.
 *
 * Compiling is ajv's code generation (a few ms a schema, and tens of ms to build the Ajv instance), so one
 * instance is made per process, on the first compile, and each compiled validator (or compile error) is
 * kept by the schema's JSON text: `validate` and the run it starts compile a schema once, however many
 * scenarios, loads or groups name it. The key keeps the schema's key order (which orders ajv's checks of
 * `properties`, hence the first error reported), so two schemas share a validator only when they are the
 * same text. The cache is bounded (least recently used out first).
 *
 * ajv itself is loaded on the first compile too (a CommonJS module, so synchronously): most runs check no
 * schema, and every worker thread of `run --workers` imports this module (loading ajv is about 80 ms of CPU).
 */
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

export type { ValidateFunction } from 'ajv';

/** Distinct schemas kept compiled; a profile has a handful, a generated one may have many. */
const MAX_CACHED_SCHEMAS = 256;

let ajv: Ajv2020 | undefined;
/** Schema JSON (without `$schema`) -> its validator, or the error compiling it threw. */
const compiled = new Map<string, { readonly schema: object; readonly result: ValidateFunction | Error }>();

const require = createRequire(import.meta.url);

function instance(): Ajv2020 {
  if (ajv === undefined) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false, addUsedSchema: false, logger: false });
  }
  return ajv;
}

/** The cache key of `schema`; null when it is not JSON (a cycle), which is compiled uncached. */
function keyOf(schema: object): string | null {
  try {
    return JSON.stringify(schema);
  } catch {
    return null;
  }
}

/**
 * `schema` compiled (its `$schema` ignored); throws ajv's error when it is not a schema. The validator is
 * shared: read its `errors` right after calling it, as ajv's own validators require.
 */
export function compileSchema(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  const { $schema: _draft, ...rest } = schema;
  const key = keyOf(rest);
  const cached = key === null ? undefined : compiled.get(key);
  if (cached !== undefined && key !== null) {
    compiled.delete(key);
    compiled.set(key, cached);
  }
  const result = cached?.result ?? compileNew(rest, key);
  if (result instanceof Error) throw result;
  return result;
}

function compileNew(schema: object, key: string | null): ValidateFunction | Error {
  const compiler = instance();
  let result: ValidateFunction | Error;
  try {
    result = compiler.compile(schema);
  } catch (error) {
    // ajv keeps a schema it could not compile in its own cache (by object): drop it.
    compiler.removeSchema(schema);
    if (!(error instanceof Error)) throw error;
    result = error;
  }
  if (key === null) {
    compiler.removeSchema(schema);
    return result;
  }
  compiled.set(key, { schema, result });
  if (compiled.size > MAX_CACHED_SCHEMAS) {
    const [oldestKey, oldest] = compiled.entries().next().value as [string, { schema: object }];
    compiled.delete(oldestKey);
    compiler.removeSchema(oldest.schema);
  }
  return result;
}
