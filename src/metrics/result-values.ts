/**
 * The kinds of value summary.json holds beyond plain numbers and strings, as zod schemas shared by the
 * result schema's files (run-summary.ts, capacity-summary.ts): counts, figures the writer leaves as null
 * when they were never measured, and HdrHistograms in compressed base64.
 */
import { z } from 'zod';

/** A count of things: an integer >= 0. */
export const resultCount = z
  .number()
  .int({ error: 'expected a count (an integer >= 0)' })
  .min(0, { error: 'expected a count (an integer >= 0)' });

/**
 * A figure that is NaN in memory when it was never measured (the harness's event-loop delay before any
 * sample): JSON has no NaN, so JSON.stringify writes null, and reading maps null back to NaN.
 */
export const measuredNumber = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);

// "HISTF..." (the compressed cookie, base64): letters, digits, + and /, padded to a multiple of 4.
const COMPRESSED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An HdrHistogram in compressed base64 ("HISTFAAA..."), as hdr-histogram-js encodes it. */
export const compressedHistogram = z
  .string()
  .regex(COMPRESSED_BASE64, { error: 'expected an HdrHistogram in compressed base64' })
  .startsWith('HISTF', { error: 'expected an HdrHistogram in compressed base64' });
