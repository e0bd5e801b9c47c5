/**
 * The API's error vocabulary: one flat body shape everywhere, the types and codes the service uses, and
 * the shape of an error event inside a stream.
 */

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'too_many_requests_error'
  | 'too_many_tokens_error'
  | 'internal_server_error'
  | 'service_unavailable_error';

/** Error codes the emulator sends (a real server may send others: clients must not depend on the set). */
export type ApiErrorCode =
  | 'wrong_api_key'
  | 'missing_api_key'
  | 'wrong_api_format'
  | 'request_too_large'
  | 'method_not_allowed'
  | 'unsupported_content_type'
  | 'unsupported_content_encoding'
  | 'invalid_version'
  | 'model_not_found'
  | 'not_found'
  | 'file_not_found'
  | 'org_not_found'
  | 'context_length_exceeded'
  | 'request_quota_exceeded'
  | 'token_quota_exceeded'
  | 'queue_exceeded'
  | 'internal_error'
  | 'service_unavailable';

export interface ApiErrorBody {
  message: string;
  type: ApiErrorType | string;
  param: string | null;
  code: ApiErrorCode | string | null;
}

/** `data: {"error": {...}, "status_code": N}` inside an SSE stream. */
export interface StreamErrorEvent {
  error: ApiErrorBody;
  status_code: number;
}
