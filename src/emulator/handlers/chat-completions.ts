/**
 * POST /v1/chat/completions: headers, body, model resolution, validation, then the load-side hooks in
 * the order hooks.ts gives (faults -> rate limits -> queue_threshold -> prompt cache), planning, and the
 * engine-driven response writer. Every answer about a served model carries the key's `x-ratelimit-*`
 * state, whatever rejected it; answers given before a model is known (auth, an undecodable body, a
 * missing, unknown or deprecated `model`) carry none, as there is no per-model limit to report.
 * `service_tier_used` is reported only when the request asked for `auto`: that is the one tier whose
 * outcome the caller cannot know (the real service omits it for the tiers asked by name).
 *
 * time_info runs from the moment the request is read (its headers parsed), stamped before anything
 * else; validation and planning then wait for the request's own turn of the event loop (one request
 * per turn, by tier, planning-turns.ts), so that requests arriving meanwhile are read and stamped, and each
 * one's wait behind the others' work is queue time the server reports, not time a client would
 * misread as its own overhead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HEADER } from '../../protocol/headers.js';
import type { ServiceTierUsed } from '../../protocol/chat.js';
import { ApiError, badRequest } from '../api-error.js';
import type { EmulatorContext } from '../emulator-context.js';
import type { ResolvedModel } from '../catalog/catalog.js';
import { planCompletion } from '../generation/plan-completion.js';
import { invalidAnswer } from '../generation/invalid-answer.js';
import { isDeprecatedModel, modelNotFound } from '../model-not-found.js';
import { authenticate } from '../http/auth.js';
import { planningTier } from '../http/planning-turns.js';
import { readBody } from '../http/read-body.js';
import { checkVersion, queueThresholdMs } from '../http/request-headers.js';
import { sendError } from '../http/send.js';
import { faultResponseError, runCompletion } from '../response/completion-writer.js';
import { validateChatRequest } from '../validation/validate-chat-request.js';

const SYSTEM_FINGERPRINT = 'fp_inferbench_emulator';
/** The `param` of a queue_threshold rejection, as the real service sends it. */
const QUEUE_PARAM = 'queue';

export async function chatCompletions(req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
  const receivedMs = ctx.engine.nowMs();
  const apiKey = authenticate(req, 'inference', ctx.keys);
  // A bad header is answered before anything in the body, but after the body names the model, so that
  // the answer can carry that model's rate-limit state.
  let thresholdMs: number | undefined;
  let headerError: unknown = null;
  try {
    checkVersion(req);
    thresholdMs = queueThresholdMs(req);
  } catch (error) {
    headerError = error;
  }
  let body: unknown;
  try {
    body = await readBody(req);
  } catch (error) {
    throw headerError ?? error;
  }
  // Everything from here to the engine is synchronous: this request's turn (see the file comment).
  await ctx.planning.next(planningTier(body));
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw headerError ?? badRequest('The request body must be a JSON object.');
  const modelName = (body as { model?: unknown }).model;
  if (typeof modelName !== 'string' || modelName.length === 0)
    throw headerError ?? badRequest('`model` is required and must be a string.', 'model');
  const resolved = ctx.catalog.resolve(modelName);
  // A deprecated model is answered like an unknown one (the spec's 404), with no limits to report.
  if (!resolved || isDeprecatedModel(resolved))
    throw headerError ?? modelNotFound(modelName, 'model', resolved !== undefined);
  try {
    if (headerError !== null) throw headerError;
    runChat(req, res, ctx, { apiKey, thresholdMs, receivedMs }, body, modelName, resolved);
  } catch (error) {
    // Rate-limit state goes on every response about a model, rejected or not.
    const asked = (body as { service_tier?: unknown }).service_tier;
    const tier: ServiceTierUsed = asked === 'priority' || asked === 'flex' ? asked : 'default';
    sendError(res, error, ctx.rateLimiter.headers(apiKey, resolved.spec, tier));
  }
}

/** What the handler learned of a request before its body: the key, the queue_threshold, when it was read. */
interface RequestFacts {
  readonly apiKey: string;
  readonly thresholdMs: number | undefined;
  /** Engine clock (ms) when the request was read. */
  readonly receivedMs: number;
}

function runChat(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: EmulatorContext,
  { apiKey, thresholdMs, receivedMs }: RequestFacts,
  body: object,
  modelName: string,
  resolved: ResolvedModel,
): void {
  const model = resolved.spec;
  const request = validateChatRequest(body, { model, dedicatedEndpoint: resolved.dedicated });

  const requestNumber = ctx.nextRequestNumber();
  const seed = request.seed ?? requestNumber;
  const fault = ctx.faults.decide(model, headerValue(req, HEADER.emulatorFault), seed);
  const faultError = faultResponseError(fault);
  if (faultError) throw faultError;

  const requestedTier = request.service_tier ?? null;
  // `auto` takes the highest tier available: priority exists on dedicated endpoints only.
  const tier: ServiceTierUsed =
    requestedTier === null || requestedTier === 'auto'
      ? requestedTier === 'auto' && resolved.dedicated
        ? 'priority'
        : 'default'
      : requestedTier;

  const planned = planCompletion(request, model, requestNumber);
  const plan = fault.kind === 'invalid_answer' ? invalidAnswer(planned) : planned;
  const reservedTokens = plan.promptTokens + (request.max_completion_tokens ?? model.limits.maxCompletionTokens);
  const admission = ctx.rateLimiter.admit(apiKey, model, tier, reservedTokens);
  if (admission.rejection) {
    sendError(res, admission.rejection, admission.headers);
    return;
  }
  if (thresholdMs !== undefined && (requestedTier === 'flex' || requestedTier === 'auto')) {
    const averageMs = ctx.engine.averageQueueMs(model.id);
    if (averageMs > thresholdMs) {
      throw new ApiError(
        429,
        'too_many_requests_error',
        'queue_exceeded',
        `The average queue time of ${model.id} (${Math.round(averageMs)} ms) exceeds queue_threshold (${thresholdMs} ms).`,
        QUEUE_PARAM,
        // Like every 429, a retry-after: the queue's current average wait, whole seconds (at least 1).
        { ...admission.headers, [HEADER.retryAfter]: String(Math.max(1, Math.ceil(averageMs / 1000))) },
      );
    }
  }
  const cachedTokens = ctx.promptCache.cachedTokens(request, plan.promptTokens, model.id);

  runCompletion({
    res,
    stream: request.stream === true,
    identity: {
      id: `chatcmpl-${requestNumber.toString(36)}${Math.floor(Math.random() * 0x7fffffff).toString(36)}`,
      created: Math.floor(Date.now() / 1000),
      model: modelName,
      systemFingerprint: SYSTEM_FINGERPRINT,
      serviceTierUsed: requestedTier === 'auto' ? tier : undefined,
      reasoningModel: model.reasoning !== null,
    },
    plan,
    cachedTokens,
    job: {
      modelId: model.id,
      tier,
      inputTokens: plan.promptTokens,
      cachedTokens,
      outputTokens: plan.tokens.length,
      seed,
      receivedMs,
    },
    engine: ctx.engine,
    meter: ctx.meters.of(model.id),
    fault,
    headers: admission.headers,
    doneMarker: ctx.doneMarker,
  });
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
