/**
 * One problem found in a profile, before it is placed on a line: the path of the field and what is wrong.
 * Also turns zod's issues into these (unions reduced to the branch the user meant, unknown keys one per key).
 */
import type { core, z } from 'zod';
import { unknownKeyMessage } from './key-suggestions.js';

export type IssuePath = readonly (string | number)[];

export interface ProfileIssue {
  readonly path: IssuePath;
  readonly message: string;
  /** Point at the key of the field rather than its value (unknown keys, bad record keys). */
  readonly atKey?: boolean;
  /** Where the value came from when not the file: the `--set` argument. */
  readonly origin?: string;
}

/** `scenarios[0].load.rate`, `slo["ttft_ms.p99"]`. */
export function formatIssuePath(path: IssuePath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(profile)' : out;
}

const RECEIVED_UNDEFINED = /^Invalid input: expected (\w+), received undefined$/;

/** zod issues -> profile issues, with messages a user can act on (`schema` and `data` suggest keys for typos). */
export function fromZodIssues(
  issues: readonly core.$ZodIssue[],
  schema: z.ZodType,
  data: unknown,
  prefix: IssuePath = [],
): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path as (string | number)[])];
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys)
          out.push({ path: [...path, key], message: unknownKeyMessage(schema, path, key, data), atKey: true });
        break;
      case 'invalid_union': {
        // Prefer the one branch whose type matched (its problems are deeper than a type mismatch).
        const matched = issue.errors.filter(
          (branch) => !branch.every((inner) => inner.path.length === 0 && inner.code === 'invalid_type'),
        );
        if (matched.length === 1) out.push(...fromZodIssues(matched[0]!, schema, data, path));
        else out.push({ path, message: issue.message });
        break;
      }
      case 'invalid_key':
        out.push({ path, message: `bad key: ${issue.issues[0]?.message ?? issue.message}`, atKey: true });
        break;
      default: {
        const missing = RECEIVED_UNDEFINED.exec(issue.message);
        out.push({
          path,
          message: missing ? `required (${missing[1]})` : issue.message.replace(/^Invalid input: /, ''),
        });
      }
    }
  }
  return out;
}
