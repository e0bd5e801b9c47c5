/**
 * The emulator's HTTP server: plain node:http, a small route table, one error path. `createEmulator`
 * warms the tokenizer, listens, and returns the base URL (no `/v1`) and a `close()` that stops timers and
 * cuts open connections. The CLI's `serve` command and the harness's embedded target both start it here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenVocabulary } from '../util/token-text.js';
import { countTokens } from '../util/tokenizer.js';
import { ApiError } from './api-error.js';
import { builtinCatalog } from './catalog/builtin-catalog.js';
import { CatalogIndex, type Catalog } from './catalog/catalog.js';
import type { EmulatorContext } from './emulator-context.js';
import type { Engine } from './engine.js';
import { capacityLookup } from './capacity/capacity-defaults.js';
import { CapacityEngine } from './capacity/capacity-engine.js';
import { SeededFaultInjector } from './faults/seeded-fault-injector.js';
import { PrefixPromptCache } from './prompt-cache/prefix-prompt-cache.js';
import { serveMetrics } from './server-metrics/exposition.js';
import { ServerMeters } from './server-metrics/model-meter.js';
import { BucketRateLimiter } from './rate-limit/bucket-rate-limiter.js';
import { chatCompletions } from './handlers/chat-completions.js';
import { fileContent } from './handlers/files.js';
import { listEndpoints } from './handlers/management.js';
import { listModels, listPublicModels, retrieveModel, retrievePublicModel } from './handlers/models.js';
import type { FaultInjector, PromptCache, RateLimiter } from './hooks.js';
import { sendError, sendJson } from './http/send.js';
import { ClientErrorResponder } from './http/client-error-responder.js';
import { PlanningTurns } from './http/planning-turns.js';
import {
  applyKeepAliveTimeout,
  resolveServerTimeouts,
  type ServerTimeouts,
  serverTimeoutOptions,
  serverTimeoutsProblem,
} from './http/server-timeouts.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default: the built-in catalog with its endpoint in `org`. */
  readonly catalog?: Catalog;
  /** The organization the management endpoint serves (default `local`). */
  readonly org?: string;
  /** Accepted inference keys; empty: any non-empty key. */
  readonly apiKeys?: readonly string[];
  /** Accepted management keys; empty: any non-empty key. */
  readonly managementKeys?: readonly string[];
  /** Directory served by GET /v1/files/{id}/content. */
  readonly filesDir?: string;
  /** End streams with `data: [DONE]` (default false, like the real service). */
  readonly doneMarker?: boolean;
  /** Timing model (default: the capacity engine over the catalog's CapacitySpecs); closed with the emulator. */
  readonly engine?: Engine;
  readonly rateLimiter?: RateLimiter;
  readonly promptCache?: PromptCache;
  readonly faults?: FaultInjector;
  /** Keep-alive, headers and request timeouts; each one not given takes its default (server-timeouts.ts). */
  readonly timeouts?: Partial<ServerTimeouts>;
}

export interface Emulator {
  readonly server: Server;
  /** Base URL without `/v1`, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly catalog: Catalog;
  close(): Promise<void>;
}

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: EmulatorContext,
  params: readonly string[],
  query: URLSearchParams,
) => void | Promise<void>;

interface Route {
  readonly pattern: RegExp;
  readonly methods: Readonly<Partial<Record<string, Handler>>>;
}

/** Path parameters are one segment each ([^/]+), decoded after matching. */
const ROUTES: readonly Route[] = [
  { pattern: /^\/v1\/chat\/completions$/, methods: { POST: (req, res, ctx) => chatCompletions(req, res, ctx) } },
  { pattern: /^\/v1\/models$/, methods: { GET: (req, res, ctx) => listModels(req, res, ctx) } },
  { pattern: /^\/v1\/models\/([^/]+)$/, methods: { GET: (req, res, ctx, [id]) => retrieveModel(req, res, ctx, id!) } },
  {
    pattern: /^\/public\/v1\/models$/,
    methods: { GET: (req, res, ctx, _p, query) => listPublicModels(req, res, ctx, query) },
  },
  {
    pattern: /^\/public\/v1\/models\/([^/]+)$/,
    methods: { GET: (req, res, ctx, [id]) => retrievePublicModel(req, res, ctx, id!) },
  },
  {
    pattern: /^\/v1\/files\/([^/]+)\/content$/,
    methods: { GET: (req, res, ctx, [id]) => fileContent(req, res, ctx, id!) },
  },
  {
    pattern: /^\/management\/v1\/orgs\/([^/]+)\/endpoints$/,
    methods: { GET: (req, res, ctx, [org]) => listEndpoints(req, res, ctx, org!) },
  },
  // The vendor SDK opens a connection here on start; it needs no key and returns nothing of interest.
  { pattern: /^\/v1\/tcp_warming$/, methods: { GET: (_req, res) => sendJson(res, 200, { status: 'ok' }) } },
  // Prometheus text in vLLM's names, no key (server-metrics/exposition.ts).
  { pattern: /^\/metrics$/, methods: { GET: (req, res, ctx) => serveMetrics(req, res, ctx) } },
];

async function dispatch(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
  const target = new URL(req.url ?? '/', 'http://emulator');
  const path = target.pathname.length > 1 ? target.pathname.replace(/\/+$/, '') : target.pathname;
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const handler = route.methods[req.method ?? 'GET'];
    if (!handler) {
      const allow = Object.keys(route.methods).join(', ');
      throw new ApiError(
        405,
        'invalid_request_error',
        'method_not_allowed',
        `Method ${req.method ?? ''} is not allowed on ${path}; use ${allow}.`,
        null,
        { allow },
      );
    }
    const params = match.slice(1).map(decodeSegment);
    await handler(req, res, ctx, params, target.searchParams);
    return;
  }
  throw new ApiError(404, 'not_found_error', 'not_found', `Unknown path ${JSON.stringify(path.slice(0, 200))}.`);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The HTTP server over the routes, with its timeouts and the answer to requests the parser rejects. */
function createHttpServer(ctx: EmulatorContext, timeouts: ServerTimeouts): Server {
  const problem = serverTimeoutsProblem(timeouts);
  if (problem !== undefined) throw new RangeError(`emulator timeouts: ${problem}`);
  const clientErrors = new ClientErrorResponder();
  const server = createServer(serverTimeoutOptions(timeouts), (req, res) => {
    clientErrors.track(req, res);
    dispatch(req, res, ctx).catch((error: unknown) => {
      // The body may be unread (early 4xx): drain it so the keep-alive connection stays usable.
      if (!req.complete) req.resume();
      sendError(res, error);
    });
  });
  applyKeepAliveTimeout(server, timeouts);
  server.on('connection', () => ctx.planning.noteConnection());
  server.on('clientError', clientErrors.answer);
  return server;
}

/** Starts an emulator and resolves once it listens (tokenizer already loaded, so the first request is fast). */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const org = options.org ?? 'local';
  const catalog = options.catalog ?? builtinCatalog(org);
  const engine =
    options.engine ?? new CapacityEngine({ capacityOf: capacityLookup(catalog.models, catalog.endpoints) });
  let requestNumber = 0;
  const ctx: EmulatorContext = {
    catalog: new CatalogIndex(catalog),
    keys: { inference: new Set(options.apiKeys ?? []), management: new Set(options.managementKeys ?? []) },
    engine,
    rateLimiter:
      options.rateLimiter ?? new BucketRateLimiter({ unlimitedModelIds: catalog.endpoints.map((e) => e.endpointId) }),
    promptCache: options.promptCache ?? new PrefixPromptCache(),
    faults: options.faults ?? new SeededFaultInjector(),
    orgs: [org],
    filesDir: options.filesDir,
    doneMarker: options.doneMarker ?? false,
    planning: new PlanningTurns(),
    meters: new ServerMeters(),
    nextRequestNumber: () => ++requestNumber,
  };

  // Loading the o200k ranks takes about a second: pay it before the URL is announced.
  tokenVocabulary();
  countTokens('warm up the tokenizer');

  const server = createHttpServer(ctx, resolveServerTimeouts(options.timeouts));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    catalog,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        engine.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
