/**
 * An error the emulator answers with: HTTP status plus the flat body `{ message, type, param, code }`
 * that every endpoint uses. Thrown inside handlers, turned into a response in one place.
 */
import type { ApiErrorBody, ApiErrorCode, ApiErrorType } from '../protocol/errors.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    readonly code: ApiErrorCode | null,
    message: string,
    readonly param: string | null = null,
    /** Extra response headers (e.g. retry-after on 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ApiErrorBody {
    return { message: this.message, type: this.type, param: this.param, code: this.code };
  }
}

/** 400 invalid_request_error / wrong_api_format naming the offending parameter. */
export function badRequest(message: string, param: string | null = null): ApiError {
  return new ApiError(400, 'invalid_request_error', 'wrong_api_format', message, param);
}
