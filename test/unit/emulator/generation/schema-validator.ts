/**
 * Test helper: an independent JSON Schema validator (ajv, draft 2020-12) with the string formats that
 * generation produces, so generated structured outputs and tool arguments are checked by code we did
 * not write.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('date', /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/);
ajv.addFormat('time', /^\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('email', /^[^@\s]+@[^@\s]+\.[a-z]+$/);
ajv.addFormat('uri', /^https?:\/\/\S+$/);
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
ajv.addFormat('ipv4', /^(\d{1,3}\.){3}\d{1,3}$/);
ajv.addFormat('hostname', /^[a-z0-9.-]+$/);

/**
 * Validators compiled once per schema text: the tests check many generated values against one schema, and
 * ajv keys its own cache by the schema object, which is a new one on every call here.
 */
const compiled = new Map<string, ValidateFunction>();

/** Returns ajv's error text, or null when `value` is valid against `schema`. */
export function schemaErrors(schema: object, value: unknown): string | null {
  // Schemas from generators name draft-07 in $schema; the keywords used here mean the same in 2020-12.
  const { $schema: _draft, ...rest } = schema as Record<string, unknown>;
  const key = JSON.stringify(rest);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(rest);
    compiled.set(key, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors);
}
