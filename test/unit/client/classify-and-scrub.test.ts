/**
 * Pure pieces of the client: status and socket-error classification by stable codes, the secret
 * scrubber, and error-body reading of every accepted shape.
 */
import { describe, expect, it } from 'vitest';
import { classifySocketError, classifyStatus } from '../../../src/client/classify-error.js';
import { errorDetails } from '../../../src/client/error-body.js';
import { createScrubber } from '../../../src/client/scrub-secret.js';

function coded(code: string): Error {
  return Object.assign(new Error('x'), { code });
}

describe('classifyStatus', () => {
  it('maps statuses to classes', () => {
    expect(classifyStatus(200)).toBeNull();
    expect(classifyStatus(204)).toBeNull();
    expect(classifyStatus(429)).toBe('http_429');
    expect(classifyStatus(401)).toBe('http_4xx');
    expect(classifyStatus(302)).toBe('http_4xx');
    expect(classifyStatus(500)).toBe('http_5xx');
    expect(classifyStatus(504)).toBe('http_5xx');
  });
});

describe('classifySocketError', () => {
  it('maps codes, including a code on the cause', () => {
    expect(classifySocketError(coded('ECONNREFUSED'))).toEqual({ errorClass: 'connect', timeoutPhase: null });
    expect(classifySocketError(coded('ENOTFOUND'))).toEqual({ errorClass: 'connect', timeoutPhase: null });
    expect(classifySocketError(coded('UND_ERR_CONNECT_TIMEOUT'))).toEqual({
      errorClass: 'timeout',
      timeoutPhase: 'connect',
    });
    expect(classifySocketError(coded('UND_ERR_HEADERS_TIMEOUT'))).toEqual({
      errorClass: 'timeout',
      timeoutPhase: 'headers',
    });
    expect(classifySocketError(coded('UND_ERR_BODY_TIMEOUT'))).toEqual({ errorClass: 'timeout', timeoutPhase: 'idle' });
    expect(classifySocketError(coded('ECONNRESET'))).toEqual({ errorClass: 'reset', timeoutPhase: null });
    expect(classifySocketError(coded('UND_ERR_SOCKET'))).toEqual({ errorClass: 'reset', timeoutPhase: null });
    expect(classifySocketError(coded('HPE_INVALID_CONSTANT'))).toEqual({ errorClass: 'bad_chunk', timeoutPhase: null });
    expect(classifySocketError(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toEqual({
      errorClass: 'connect',
      timeoutPhase: null,
    });
    expect(classifySocketError('not an error')).toEqual({ errorClass: 'reset', timeoutPhase: null });
  });
});

describe('createScrubber', () => {
  it('removes the key wherever it appears and any bearer token, then shortens', () => {
    const scrub = createScrubber('sk-abc123456789');
    expect(scrub('key sk-abc123456789 was wrong (sk-abc123456789)')).toBe('key *** was wrong (***)');
    expect(scrub('Authorization: Bearer sk-someone-else')).toBe('Authorization: Bearer ***');
    const long = scrub(`${'x'.repeat(1000)} sk-abc123456789`);
    expect(long.length).toBeLessThanOrEqual(300);
    expect(long).not.toContain('sk-abc');
  });

  it('scrubs before cutting, so no prefix of the key survives a cut', () => {
    const key = 'sk-0123456789abcdef';
    const message = `${'y'.repeat(290)}${key}`;
    expect(createScrubber(key)(message)).not.toContain('sk-01');
  });

  it('without a key only bearer tokens are removed', () => {
    expect(createScrubber(null)('bearer abc.def and text')).toBe('Bearer *** and text');
  });
});

describe('errorDetails', () => {
  it('reads flat, wrapped and stream error shapes', () => {
    expect(errorDetails({ message: 'm', type: 't', param: null, code: 'c' })).toEqual({ message: 'm', code: 'c' });
    expect(errorDetails({ error: { message: 'm2', code: 42 } })).toEqual({ message: 'm2', code: '42' });
    expect(errorDetails({ error: { message: 'm3', code: null }, status_code: 500 })).toEqual({
      message: 'm3',
      code: null,
    });
    expect(errorDetails({ error: 'plain' })).toEqual({ message: 'plain', code: null });
    expect(errorDetails('text')).toEqual({ message: null, code: null });
    expect(errorDetails(null)).toEqual({ message: null, code: null });
  });

  it("reads Anthropic's error body: its error type is the code, an OpenAI error's type is not", () => {
    expect(errorDetails({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual({
      message: 'Overloaded',
      code: 'overloaded_error',
    });
    expect(errorDetails({ error: { message: 'm', type: 'invalid_request_error', code: null } })).toEqual({
      message: 'm',
      code: null,
    });
  });
});
