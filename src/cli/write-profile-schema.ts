#!/usr/bin/env node
/**
 * Writes schema/profile.schema.json from the zod schema of profiles: `node dist/cli/write-profile-schema.js`
 * after a build, run from the package root (test/unit/profile/json-schema.test.ts fails when it is stale).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROFILE_SCHEMA_PATH, profileJsonSchemaText } from '../profile/json-schema.js';

const target = resolve(process.cwd(), PROFILE_SCHEMA_PATH);
writeFileSync(target, profileJsonSchemaText());
process.stdout.write(`wrote ${target}\n`);
