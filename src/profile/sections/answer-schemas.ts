/**
 * The schemas answers are checked against must compile (util/json-schema-compiler.ts): each tool's
 * `function.parameters` and `response_format.json_schema.schema` of a `request` (defaults' or a scenario's).
 * A schema that does not is a profile problem at its own line, found by `validate` before anything is sent,
 * rather than a run that cannot check its answers. Compiled validators are kept per process by schema text
 * (util/json-schema-compiler.ts), so a schema named by several requests, or loaded again, compiles once.
 */
import { compileSchema } from '../../util/json-schema-compiler.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compiles(schema: unknown, path: IssuePath, issues: ProfileIssue[]): void {
  if (!isRecord(schema)) return;
  try {
    compileSchema(schema);
  } catch (error) {
    issues.push({ path, message: `not a JSON Schema answers can be checked against: ${(error as Error).message}` });
  }
}

/** Problems of the answer schemas of `request` (found at `path`, e.g. ['scenarios', 0, 'request']). */
export function checkAnswerSchemas(request: unknown, path: IssuePath): ProfileIssue[] {
  if (!isRecord(request)) return [];
  const issues: ProfileIssue[] = [];
  const tools = request['tools'];
  if (Array.isArray(tools)) {
    tools.forEach((tool, t) => {
      const fn = isRecord(tool) ? tool['function'] : undefined;
      if (isRecord(fn)) compiles(fn['parameters'], [...path, 'tools', t, 'function', 'parameters'], issues);
    });
  }
  const format = request['response_format'];
  const spec = isRecord(format) && format['type'] === 'json_schema' ? format['json_schema'] : undefined;
  if (isRecord(spec)) compiles(spec['schema'], [...path, 'response_format', 'json_schema', 'schema'], issues);
  return issues;
}
