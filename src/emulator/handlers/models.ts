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

function modelNotFound(id: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'model_not_found',
    `Model ${JSON.stringify(id.slice(0, 200))} does not exist or you do not have access to it.`,
    'model_id',
  );
}

export function listModels(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): void {
  authenticate(req, 'inference', ctx.keys);
  sendJson(res, 200, { object: 'list', data: ctx.catalog.catalog.models.map(toModel) });
}

/** A catalog model, or a dedicated endpoint id (usable as a model, so retrievable as one). */
export function retrieveModel(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext, id: string): void {
  authenticate(req, 'inference', ctx.keys);
  const resolved = ctx.catalog.resolve(id);
  if (!resolved) throw modelNotFound(id);
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
  if (!model) throw modelNotFound(id);
  sendJson(res, 200, toPublicModel(model));
}
