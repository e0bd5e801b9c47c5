/**
 * The model endpoints: GET /v1/models and /v1/models/{id} (inference key), and the public catalog
 * GET /public/v1/models[?format=router|hub] and /public/v1/models/{id} (no key).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogFormat } from '../../protocol/models.js';
import { ApiError } from '../api-error.js';
import type { EmulatorContext } from '../emulator-context.js';
import { CATALOG_FORMATS, publicCatalog, toModel, toPublicModel } from '../catalog/public-formats.js';
import { authenticate } from '../http/auth.js';
import { sendJson } from '../http/send.js';
import { isDeprecatedModel, modelNotFound } from '../model-not-found.js';

/** The models the key can use: deprecated ones are left out (the public catalog still shows them). */
export function listModels(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): void {
  authenticate(req, 'inference', ctx.keys);
  const served = ctx.catalog.catalog.models.filter((model) => !model.deprecated);
  sendJson(res, 200, { object: 'list', data: served.map(toModel) });
}

/** A served catalog model, or a dedicated endpoint id (usable as a model, so retrievable as one). */
export function retrieveModel(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext, id: string): void {
  authenticate(req, 'inference', ctx.keys);
  const resolved = ctx.catalog.resolve(id);
  if (!resolved || isDeprecatedModel(resolved)) throw modelNotFound(id, 'model_id', resolved !== undefined);
  sendJson(res, 200, toModel(resolved.spec));
}

export function listPublicModels(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: EmulatorContext,
  query: URLSearchParams,
): void {
  const format = query.get('format') ?? 'default';
  if (!(CATALOG_FORMATS as readonly string[]).includes(format)) {
    throw new ApiError(
      400,
      'invalid_request_error',
      'wrong_api_format',
      `Unknown format ${JSON.stringify(format.slice(0, 64))}: use router or hub, or omit it.`,
      'format',
    );
  }
  sendJson(res, 200, publicCatalog(ctx.catalog.catalog.models, format as CatalogFormat));
}

export function retrievePublicModel(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: EmulatorContext,
  id: string,
): void {
  const model = ctx.catalog.model(id);
  if (!model) throw modelNotFound(id, 'model_id');
  sendJson(res, 200, toPublicModel(model));
}
