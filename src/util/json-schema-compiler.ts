/**
 * The one way inferbench compiles a JSON Schema that an answer is checked against (tool `parameters`,
 * `response_format.json_schema.schema`): ajv, JSON Schema 2020-12, not strict (schemas written for models
 * carry descriptions and keywords ajv does not know), `format` not checked (no format vocabulary at run
 * time), `$schema` ignored (the keywords structured outputs use mean the same in draft-07 and 2020-12), and
 * `$id`s not registered (two tools may reuse one). Used by the profile check (does it compile?) and by the
 * answer checks (measure/answer-validators.ts), so both agree on what a schema means.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

export type { ValidateFunction } from 'ajv';

export interface SchemaCompiler {
  /** Compiles `schema`; throws ajv's error when it is not a schema. */
  compile(schema: Readonly<Record<string, unknown>>): ValidateFunction;
}

export function createSchemaCompiler(): SchemaCompiler {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    validateFormats: false,
    addUsedSchema: false,
    logger: false,
  });
  return {
    compile(schema) {
      const { $schema: _draft, ...rest } = schema;
      return ajv.compile(rest);
    },
  };
}
