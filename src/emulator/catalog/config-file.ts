/**
 * `inferbench serve --config FILE`: a YAML file (snake_case keys) that extends or replaces the built-in
 * catalog. Validated with zod in one pass; every problem is reported with the file, line and field, and
 * thrown as InferbenchError BAD_CONFIG (the CLI exits 2). Format (every model field is optional: a
 * model with a built-in id is merged over that model, `based_on` names another model to start from, and
 * a new model with neither starts from the first built-in):
 *
 *     replace_builtin: false        # true: drop the built-in models and endpoints
 *     models:
 *       - id: my-model
 *         based_on: large-70b
 *         name: My Model
 *         pricing: { prompt: "0.0000002", completion: "0.0000004" }   # USD per token, strings
 *         limits: { max_context_length: 32768, max_completion_tokens: 4096, requests_per_minute: null, tokens_per_minute: 100000 }
 *         capabilities: { vision: false, reasoning: false }          # any of the ten booleans
 *         supported_parameters: [temperature, top_p, seed, stream]
 *         reasoning: { efforts: [low, medium, high], default_effort: medium, tokens_by_effort: { low: 64, medium: 256, high: 1024 }, formats: [parsed] }
 *         typical_output_tokens: 200
 *         capacity: { prefill_tokens_per_s: 10000, decode_tokens_per_s: 800, slots: 16, ttft_floor_ms: 40, jitter: 0.1, cache_speedup: 0.8 }
 *         faults: { http500: 0.01, http503: 0, stream_error: 0, reset: 0, stall_before_headers: 0, stall_between_tokens: 0, stall_ms: 2000 }
 *     endpoints:
 *       - endpoint_id: ep-my-model
 *         model_arch_id: my-model
 *         org_name: local
 *         capacity: { slots: 40 }     # merged over the architecture's capacity
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isNode } from 'yaml';
import { z } from 'zod';
import { InferbenchError } from '../../errors.js';
import type { CapacitySpec, EndpointSpec, FaultSpec, ModelSpec, ReasoningSpec } from '../model-spec.js';
import { BUILTIN_MODELS, builtinEndpoints } from './builtin-catalog.js';
import type { Catalog } from './catalog.js';

const effort = z.enum(['low', 'medium', 'high', 'none']);
const usd = z.string().regex(/^\d+(\.\d+)?$/, 'a decimal string of USD per token, e.g. "0.0000002"');
const nonNegInt = z.number().int().nonnegative();
const positive = z.number().positive();
const rate = z.number().min(0).max(1);

const capacitySchema = z
  .strictObject({
    prefill_tokens_per_s: positive,
    decode_tokens_per_s: positive,
    slots: z.number().int().positive(),
    ttft_floor_ms: z.number().nonnegative(),
    jitter: z.number().min(0).max(1),
    cache_speedup: rate,
  })
  .partial();

const faultsSchema = z
  .strictObject({
    http500: rate,
    http503: rate,
    stream_error: rate,
    reset: rate,
    stall_before_headers: rate,
    stall_between_tokens: rate,
    stall_ms: z.number().nonnegative(),
  })
  .partial();

const capabilitiesSchema = z
  .strictObject({
    streaming: z.boolean(),
    function_calling: z.boolean(),
    structured_outputs: z.boolean(),
    vision: z.boolean(),
    json_mode: z.boolean(),
    tools: z.boolean(),
    tool_choice: z.boolean(),
    parallel_tool_calls: z.boolean(),
    response_format: z.boolean(),
    reasoning: z.boolean(),
  })
  .partial();

const modelSchema = z.strictObject({
  id: z.string().min(1),
  based_on: z.string().min(1).optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  owned_by: z.string().optional(),
  created: nonNegInt.optional(),
  hub_model_id: z.string().optional(),
  pricing: z.strictObject({ prompt: usd, completion: usd }).partial().optional(),
  capabilities: capabilitiesSchema.optional(),
  supported_parameters: z.array(z.string()).optional(),
  architecture: z
    .strictObject({ modality: z.string(), tokenizer: z.string(), instruct_type: z.string() })
    .partial()
    .optional(),
  limits: z
    .strictObject({
      max_context_length: z.number().int().positive(),
      max_completion_tokens: z.number().int().positive(),
      requests_per_minute: z.number().int().positive().nullable(),
      tokens_per_minute: z.number().int().positive().nullable(),
    })
    .partial()
    .optional(),
  datacenter_locations: z.array(z.string()).optional(),
  deprecated: z.boolean().optional(),
  preview: z.boolean().optional(),
  quantization: z.string().optional(),
  reasoning: z
    .strictObject({
      efforts: z.array(effort).min(1),
      default_effort: effort,
      tokens_by_effort: z.partialRecord(effort, nonNegInt),
      formats: z.array(z.string()),
    })
    .nullable()
    .optional(),
  typical_output_tokens: z.number().int().positive().optional(),
  capacity: capacitySchema.optional(),
  faults: faultsSchema.optional(),
});

const endpointSchema = z.strictObject({
  endpoint_id: z.string().min(1),
  model_arch_id: z.string().min(1),
  org_name: z.string().min(1).optional(),
  created: nonNegInt.optional(),
  updated: nonNegInt.optional(),
  capacity: capacitySchema.optional(),
});

const configSchema = z.strictObject({
  replace_builtin: z.boolean().optional(),
  models: z.array(modelSchema).optional(),
  endpoints: z.array(endpointSchema).optional(),
});

type ModelEntry = z.infer<typeof modelSchema>;
type CapacityEntry = z.infer<typeof capacitySchema>;

/** Reads and applies a config file over the built-in catalog. Throws InferbenchError BAD_CONFIG. */
export function loadCatalogConfig(path: string, orgName = 'local'): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InferbenchError('BAD_CONFIG', `cannot read emulator config ${path}: ${(error as Error).message}`, {
      cause: error,
      hint: 'pass an existing YAML file to --config',
    });
  }
  return parseCatalogConfig(text, path, orgName);
}

/** Parses config text (named `file` in messages) and returns the resulting catalog. */
export function parseCatalogConfig(text: string, file: string, orgName = 'local'): Catalog {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return `${file}:${pos.line}:${pos.col}: ${e.message.split('\n')[0]}`;
    });
    throw badConfig(lines);
  }
  let raw: unknown;
  try {
    raw = doc.toJS() ?? {};
  } catch (error) {
    // yaml throws, rather than reports, when aliases expand too far (a "billion laughs" document).
    throw badConfig([`${file}:1:1: ${(error as Error).message.split('\n')[0]}`]);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      // Point an unknown key's message at the key itself, not at the object holding it.
      if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
      return `${file}:${lineOf(doc, lineCounter, path)}: ${formatPath(path)}: ${issue.message}`;
    });
    throw badConfig(lines);
  }
  const config = parsed.data;
  const problems: string[] = [];
  const models = new Map<string, ModelSpec>();
  if (!config.replace_builtin) for (const model of BUILTIN_MODELS) models.set(model.id, model);
  (config.models ?? []).forEach((entry, i) => {
    const base =
      models.get(entry.id) ?? (entry.based_on ? models.get(entry.based_on) : undefined) ?? BUILTIN_MODELS[0]!;
    if (entry.based_on && !models.has(entry.based_on)) {
      problems.push(
        `${file}:${lineOf(doc, lineCounter, ['models', i, 'based_on'])}: models.${i}.based_on: unknown model "${entry.based_on}"`,
      );
    }
    const reasoning = entry.reasoning;
    if (reasoning && !reasoning.efforts.includes(reasoning.default_effort)) {
      problems.push(
        `${file}:${lineOf(doc, lineCounter, ['models', i, 'reasoning', 'default_effort'])}: models.${i}.reasoning.default_effort: "${reasoning.default_effort}" is not one of efforts`,
      );
    }
    models.set(entry.id, applyModel(base, entry));
  });
  const endpoints = new Map<string, EndpointSpec>();
  if (!config.replace_builtin)
    for (const endpoint of builtinEndpoints(orgName)) endpoints.set(endpoint.endpointId, endpoint);
  (config.endpoints ?? []).forEach((entry, i) => {
    const arch = models.get(entry.model_arch_id);
    if (!arch) {
      problems.push(
        `${file}:${lineOf(doc, lineCounter, ['endpoints', i, 'model_arch_id'])}: endpoints.${i}.model_arch_id: unknown model "${entry.model_arch_id}"`,
      );
      return;
    }
    if (models.has(entry.endpoint_id)) {
      problems.push(
        `${file}:${lineOf(doc, lineCounter, ['endpoints', i, 'endpoint_id'])}: endpoints.${i}.endpoint_id: "${entry.endpoint_id}" is already a model id`,
      );
      return;
    }
    const previous = endpoints.get(entry.endpoint_id);
    endpoints.set(entry.endpoint_id, {
      endpointId: entry.endpoint_id,
      modelArchId: entry.model_arch_id,
      orgName: entry.org_name ?? previous?.orgName ?? orgName,
      created: entry.created ?? previous?.created ?? arch.created,
      updated: entry.updated ?? previous?.updated ?? arch.created,
      capacity: applyCapacity(previous?.capacity ?? arch.capacity, entry.capacity),
    });
  });
  if (models.size === 0)
    problems.push(`${file}:1: models: the catalog has no models (replace_builtin is true and no model is defined)`);
  if (problems.length > 0) throw badConfig(problems);
  return { models: [...models.values()], endpoints: [...endpoints.values()] };
}

function applyModel(base: ModelSpec, e: ModelEntry): ModelSpec {
  return {
    id: e.id,
    name: e.name ?? (base.id === e.id ? base.name : e.id),
    description: e.description ?? base.description,
    ownedBy: e.owned_by ?? base.ownedBy,
    created: e.created ?? base.created,
    hubModelId: e.hub_model_id ?? (base.id === e.id ? base.hubModelId : e.id),
    pricing: { ...base.pricing, ...e.pricing },
    capabilities: { ...base.capabilities, ...e.capabilities },
    supportedParameters: e.supported_parameters ?? base.supportedParameters,
    architecture: {
      modality: e.architecture?.modality ?? base.architecture.modality,
      tokenizer: e.architecture?.tokenizer ?? base.architecture.tokenizer,
      instructType: e.architecture?.instruct_type ?? base.architecture.instructType,
    },
    limits: {
      maxContextLength: e.limits?.max_context_length ?? base.limits.maxContextLength,
      maxCompletionTokens: e.limits?.max_completion_tokens ?? base.limits.maxCompletionTokens,
      requestsPerMinute:
        e.limits?.requests_per_minute !== undefined ? e.limits.requests_per_minute : base.limits.requestsPerMinute,
      tokensPerMinute:
        e.limits?.tokens_per_minute !== undefined ? e.limits.tokens_per_minute : base.limits.tokensPerMinute,
    },
    datacenterLocations: e.datacenter_locations ?? base.datacenterLocations,
    deprecated: e.deprecated ?? base.deprecated,
    preview: e.preview ?? base.preview,
    quantization: e.quantization ?? base.quantization,
    reasoning: e.reasoning === undefined ? base.reasoning : e.reasoning === null ? null : toReasoning(e.reasoning),
    typicalOutputTokens: e.typical_output_tokens ?? base.typicalOutputTokens,
    capacity: applyCapacity(base.capacity, e.capacity),
    faults: applyFaults(base.faults, e.faults),
  };
}

function toReasoning(r: NonNullable<ModelEntry['reasoning']>): ReasoningSpec {
  return {
    efforts: r.efforts,
    defaultEffort: r.default_effort,
    tokensByEffort: r.tokens_by_effort,
    formats: r.formats,
  };
}

function applyCapacity(base: CapacitySpec, c: CapacityEntry | undefined): CapacitySpec {
  return {
    prefillTokensPerS: c?.prefill_tokens_per_s ?? base.prefillTokensPerS,
    decodeTokensPerS: c?.decode_tokens_per_s ?? base.decodeTokensPerS,
    slots: c?.slots ?? base.slots,
    ttftFloorMs: c?.ttft_floor_ms ?? base.ttftFloorMs,
    jitter: c?.jitter ?? base.jitter,
    cacheSpeedup: c?.cache_speedup ?? base.cacheSpeedup,
  };
}

function applyFaults(base: FaultSpec, f: ModelEntry['faults']): FaultSpec {
  return {
    http500: f?.http500 ?? base.http500,
    http503: f?.http503 ?? base.http503,
    streamError: f?.stream_error ?? base.streamError,
    reset: f?.reset ?? base.reset,
    stallBeforeHeaders: f?.stall_before_headers ?? base.stallBeforeHeaders,
    stallBetweenTokens: f?.stall_between_tokens ?? base.stallBetweenTokens,
    stallMs: f?.stall_ms ?? base.stallMs,
  };
}

/** The line of the deepest node on `path` that exists (a missing key points at its parent). */
function lineOf(
  doc: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  path: readonly (string | number)[],
): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return 1;
}

function formatPath(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(top level)' : path.join('.');
}

function badConfig(lines: readonly string[]): InferbenchError {
  return new InferbenchError('BAD_CONFIG', `invalid emulator config:\n  ${lines.join('\n  ')}`, {
    hint: 'see docs/emulator.md for the config file format',
  });
}
