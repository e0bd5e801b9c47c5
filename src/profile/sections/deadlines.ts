/**
 * The `deadlines:` block of a profile, as written: the per-token deadlines of etalon's fluidity index
 * (measure/fluidity.ts), e.g. `deadlines: { ttft: 500ms, tbt: 50ms }`. Each needs its unit: a bare 500
 * could be seconds (as elsewhere in a profile) or milliseconds, and a deadline of 0 means nothing.
 * Resolved to milliseconds in resolve-profile.ts.
 */
import { z } from 'zod';

/** A positive duration with its unit: "500ms", "0.5s", "250us". */
const DEADLINE_PATTERN = /^\s*(?=[\d.]*[1-9])\d+(?:\.\d+)?\s*(?:us|ms|s)\s*$/;
const DEADLINE_MESSAGE = 'expected a positive duration with its unit, like "500ms" or "0.5s"';

const deadline = z.string({ error: DEADLINE_MESSAGE }).regex(DEADLINE_PATTERN, { error: DEADLINE_MESSAGE });

export const deadlinesSchema = z
  .strictObject({
    ttft: deadline.meta({ description: "The first token's deadline (etalon's prefill deadline D_p), e.g. 500ms." }),
    tbt: deadline.meta({
      description: "Each next token's deadline after the previous one (etalon's decode deadline D_d), e.g. 50ms.",
    }),
  })
  .meta({
    id: 'deadlines',
    description:
      'Per-token deadlines for the fluidity_index metric (etalon): { ttft: 500ms, tbt: 50ms }. Omitted: no fluidity_index.',
  });

export type DeadlinesInput = z.infer<typeof deadlinesSchema>;
