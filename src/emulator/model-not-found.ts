/**
 * The spec's 404 for a `model` (or model id) that is misspelled, deprecated, or not available to the
 * account: one type and code for all three, `not_found_error`/`model_not_found`, as the spec lists them
 * under one condition ("model not found"). A deprecated model is one the catalog marks
 * `deprecated: true`: it stays in the public catalog (that is where `deprecated` is reported) but is no
 * longer served, listed or retrievable through the keyed model endpoints. Dedicated endpoints are
 * deployments of their own and keep serving whatever their architecture's catalog entry says.
 */
import { ApiError } from './api-error.js';
import type { ResolvedModel } from './catalog/catalog.js';

/** True when requests naming this model are answered with the 404 rather than served. */
export function isDeprecatedModel(resolved: ResolvedModel): boolean {
  return !resolved.dedicated && resolved.spec.deprecated;
}

/**
 * The 404 for `requestedId`; `param` names where it was sent (`model` in a chat body, `model_id` in a
 * path). The message says when the model is deprecated, so a user does not hunt for a typo.
 */
export function modelNotFound(requestedId: string, param: string, deprecated = false): ApiError {
  const quoted = JSON.stringify(requestedId.slice(0, 200));
  const message = deprecated
    ? `Model ${quoted} is deprecated and no longer served; choose another model.`
    : `Model ${quoted} does not exist or you do not have access to it.`;
  return new ApiError(404, 'not_found_error', 'model_not_found', message, param);
}
