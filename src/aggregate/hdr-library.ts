/**
 * hdr-histogram-js, loaded on the first histogram (a CommonJS module, so synchronously): every worker thread
 * of `run --workers` imports the aggregate modules through the runner but forwards its records to the
 * coordinator, which keeps the histograms (loading the library is about 90 ms of CPU).
 */
import { createRequire } from 'node:module';
import type * as HdrHistogramJs from 'hdr-histogram-js';

const require = createRequire(import.meta.url);
let library: typeof HdrHistogramJs | undefined;

/** The hdr-histogram-js module. */
export function hdr(): typeof HdrHistogramJs {
  library ??= require('hdr-histogram-js') as typeof HdrHistogramJs;
  return library;
}
