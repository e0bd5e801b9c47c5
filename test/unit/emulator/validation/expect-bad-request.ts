/** Test helper: runs the validator and returns the ApiError it throws (fails the test if none). */
import { expect } from 'vitest';
import { ApiError } from '../../../../src/emulator/api-error.js';
import type { ModelSpec } from '../../../../src/emulator/model-spec.js';
import { validateChatRequest } from '../../../../src/emulator/validation/validate-chat-request.js';
import { textModel } from '../generation/model-fixtures.js';

export interface Options {
  readonly model?: ModelSpec;
  readonly dedicatedEndpoint?: boolean;
}

export function validate(body: unknown, options: Options = {}) {
  return validateChatRequest(body, {
    model: options.model ?? textModel,
    dedicatedEndpoint: options.dedicatedEndpoint ?? false,
  });
}

/** A minimal valid body with `extra` merged over it. */
export function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'test-text', messages: [{ role: 'user', content: 'Hello there' }], ...extra };
}

export function rejection(request: unknown, options: Options = {}): ApiError {
  try {
    validate(request, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.type).toBe('invalid_request_error');
    return apiError;
  }
  throw new Error(`expected a 400 for ${JSON.stringify(request).slice(0, 200)}`);
}

/** Asserts a 400 naming `param` with a message matching `message`. */
export function expectRejected(
  request: unknown,
  param: string | null,
  message: RegExp,
  options: Options = {},
): ApiError {
  const error = rejection(request, options);
  expect(error.param).toBe(param);
  expect(error.message).toMatch(message);
  return error;
}
