/**
 * How a request can fail, as the harness classifies it (DESIGN.md "error classes"). Wire-level
 * vocabulary shared by the client (which classifies), the profile (retry.on) and the reports.
 * `http_429` is throttling and is kept apart from failures.
 */
export const ERROR_CLASSES = [
  'http_429',
  'http_4xx',
  'http_5xx',
  'timeout',
  'connect',
  'reset',
  'stream_error',
  'stream_truncated',
  'bad_chunk',
  'wrong_content_type',
] as const;

export type ErrorClass = (typeof ERROR_CLASSES)[number];
