/**
 * The keys `load` takes for trace replay (`mode: trace`), spread into profile-schema.ts's load object.
 * Which keys fit which mode is checked in trace-checks.ts.
 */
import { z } from 'zod';
import { TRACE_FORMATS } from './sections/trace/trace-file.js';

/** Mirrors util/duration.ts (as profile-schema.ts's duration does). */
const DURATION_PATTERN = /^\s*(?:\d+(?:\.\d+)?|(?:\d+(?:\.\d+)?(?:us|ms|s|m|h))+)\s*$/;
const traceStart = z
  .union([z.string().regex(DURATION_PATTERN, { error: 'expected a duration like "30s" or "2m"' }), z.number().min(0)])
  .meta({ description: 'Trace replay: skip the trace before this time (from its first record); default 0s.' });

/** `load` keys of `mode: trace`. */
export const traceLoadFields = {
  path: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Trace replay: the trace file (JSONL or CSV), relative to the profile.' }),
  format: z
    .enum(['auto', ...TRACE_FORMATS])
    .optional()
    .meta({ description: 'Trace replay: inferbench | mooncake | burstgpt; default auto (from the first record).' }),
  timestamp_unit: z
    .enum(['ms', 's'])
    .optional()
    .meta({ description: "Trace replay: unit of the timestamps; default the format's (ms; s for burstgpt)." }),
  time_scale: z
    .number()
    .positive()
    .optional()
    .meta({ description: 'Trace replay speed: 2 replays twice as fast, 0.5 at half speed; default 1.' }),
  start: traceStart.optional(),
};
