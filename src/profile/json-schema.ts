/**
 * The JSON Schema of profiles (schema/profile.schema.json), generated from the zod schema so the two can
 * never disagree. Editors with the YAML language server complete and check profiles with it; a test
 * checks that the committed file equals what this returns.
 */
import { z } from 'zod';
import { profileSchema } from './profile-schema.js';

/** Where the schema is published inside the package (relative to the package root). */
export const PROFILE_SCHEMA_PATH = 'schema/profile.schema.json';

/** The schema as an object (draft 2020-12, the input side: what users write). */
export function profileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(profileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** The exact text of schema/profile.schema.json. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
