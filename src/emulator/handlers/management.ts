/** GET /management/v1/orgs/{org_name}/endpoints: the dedicated endpoints an organization manages (management key). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api-error.js';
import type { EmulatorContext } from '../emulator-context.js';
import { toManagedEndpoint } from '../catalog/public-formats.js';
import { authenticate } from '../http/auth.js';
import { sendJson } from '../http/send.js';

export function listEndpoints(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext, orgName: string): void {
  authenticate(req, 'management', ctx.keys);
  const endpoints = ctx.catalog.endpointsOf(orgName, ctx.orgs);
  if (!endpoints) {
    throw new ApiError(
      404,
      'not_found_error',
      'org_not_found',
      `Organization ${JSON.stringify(orgName.slice(0, 200))} does not exist or is not managed by this key.`,
      'org_name',
    );
  }
  sendJson(res, 200, { endpoints: endpoints.map(toManagedEndpoint) });
}
