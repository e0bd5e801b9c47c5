/**
 * The catalog the emulator serves: its models, the dedicated endpoints of managed organizations, and
 * the lookup that turns a request's `model` (a model id or an endpoint id) into the ModelSpec it runs as.
 */
import type { EndpointSpec, ModelSpec } from '../model-spec.js';

export interface Catalog {
  readonly models: readonly ModelSpec[];
  readonly endpoints: readonly EndpointSpec[];
}

/** What a request's `model` resolves to. */
export interface ResolvedModel {
  /** The spec the request runs as: for an endpoint, its architecture's spec with the endpoint's id and capacity. */
  readonly spec: ModelSpec;
  /** True when `model` named a dedicated endpoint (the only place `priority` is allowed). */
  readonly dedicated: boolean;
  readonly endpoint: EndpointSpec | null;
}

/** Id lookups over a catalog, built once. */
export class CatalogIndex {
  readonly #models = new Map<string, ModelSpec>();
  readonly #resolved = new Map<string, ResolvedModel>();

  constructor(readonly catalog: Catalog) {
    for (const model of catalog.models) {
      this.#models.set(model.id, model);
      this.#resolved.set(model.id, { spec: model, dedicated: false, endpoint: null });
    }
    for (const endpoint of catalog.endpoints) {
      const arch = this.#models.get(endpoint.modelArchId);
      if (!arch) continue;
      const spec: ModelSpec = {
        ...arch,
        id: endpoint.endpointId,
        ownedBy: endpoint.orgName,
        created: endpoint.created,
        capacity: endpoint.capacity,
      };
      this.#resolved.set(endpoint.endpointId, { spec, dedicated: true, endpoint });
    }
  }

  /** A catalog model by id (not endpoints). */
  model(id: string): ModelSpec | undefined {
    return this.#models.get(id);
  }

  /** A model id or a dedicated endpoint id -> what requests naming it run as. */
  resolve(id: string): ResolvedModel | undefined {
    return this.#resolved.get(id);
  }

  /** The dedicated endpoints managed by an organization, or undefined when no such organization exists. */
  endpointsOf(orgName: string, knownOrgs: readonly string[]): readonly EndpointSpec[] | undefined {
    const endpoints = this.catalog.endpoints.filter((e) => e.orgName === orgName);
    if (endpoints.length === 0 && !knownOrgs.includes(orgName)) return undefined;
    return endpoints;
  }
}
