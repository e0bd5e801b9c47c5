/**
 * The one error type inferbench throws on purpose. Callers match on `code`, never on message text;
 * the CLI maps codes to exit codes (cli/exit-codes.ts) and prints `hint` under the message.
 * Imports nothing: every layer may use it.
 */
export type InferbenchErrorCode =
  | 'BAD_USAGE'
  | 'BAD_PROFILE'
  | 'BAD_CONFIG'
  | 'BAD_RESULTS'
  | 'TARGET_UNREACHABLE'
  | 'TARGET_ERROR'
  | 'RUN_FAILED'
  | 'THRESHOLD_FAILED'
  | 'INTERRUPTED'
  | 'INTERNAL';

export interface InferbenchErrorOptions {
  readonly cause?: unknown;
  readonly hint?: string;
}

export class InferbenchError extends Error {
  readonly code: InferbenchErrorCode;
  readonly hint: string | undefined;

  constructor(code: InferbenchErrorCode, message: string, options: InferbenchErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InferbenchError';
    this.code = code;
    this.hint = options.hint;
  }
}

export function isInferbenchError(value: unknown): value is InferbenchError {
  return value instanceof InferbenchError;
}
