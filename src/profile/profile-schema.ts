/**
 * The profile YAML as users write it (snake_case keys of DESIGN.md), as one zod schema: strict objects so
 * that unknown keys are errors, and no transforms so that the same schema also generates the JSON Schema
 * editors use (schema/profile.schema.json). Each section's own block is its section's schema
 * (profile/sections/); defaults and unit conversion happen after validation, in resolve-profile.ts and the
 * sections, never here.
 */
import { z } from 'zod';
import { CHAT_REQUEST_PARAMETERS, SERVICE_TIERS } from '../protocol/chat.js';
import type { ServiceTier } from '../protocol/chat.js';
import { ERROR_CLASSES } from '../protocol/error-classes.js';
import { duration, lengthDistribution } from './field-kinds.js';
import { METRIC_OR_GROUP_VALUE_PATTERN, METRIC_STAT_PATTERN } from './metric-names.js';
import { apiSchema, inputsPerRequestSchema } from './sections/api.js';
import { capacitySchema } from './sections/capacity.js';
import { sessionSchema, toolLoopSchema } from './sections/conversation.js';
import { datasetSchema } from './sections/dataset.js';
import { deadlinesSchema } from './sections/deadlines.js';
import { reasoningEffortsSchema } from './sections/dimensions.js';
import { imagesSchema } from './sections/images.js';
import { liveSchema } from './sections/live.js';
import { modelsSchema } from './sections/models.js';
import { prefixesSchema } from './sections/prefixes.js';
import { pricingSchema } from './sections/pricing.js';
import { serverMetricsSchema } from './sections/server-metrics.js';
import { traceLoadFields } from './sections/trace/trace.js';

const positiveInt = z.number().int().min(1);
const tokenCount = z.number().int().min(0);

const stage = z.strictObject({
  duration,
  rate: z.number().nonnegative().optional().meta({ description: 'Requests/s at the end of the stage (rate mode).' }),
  concurrency: tokenCount
    .optional()
    .meta({ description: 'Concurrent requests at the end of the stage (concurrency mode).' }),
  ramp: z
    .enum(['linear', 'step'])
    .optional()
    .meta({ description: 'linear (default) ramps from the previous target; step holds this one.' }),
});

const load = z
  .strictObject({
    mode: z.enum(['concurrency', 'rate', 'throughput', 'sweep', 'trace']).optional().meta({
      description:
        'concurrency: closed loop; rate: open loop; throughput: as fast as the server takes (a closed loop at max_concurrency, default 256); sweep: one at a time, then throughput, then `steps` rates between. trace: replays the arrivals and lengths of a trace file (path). Default: rate when rate/arrival is given.',
    }),
    steps: positiveInt
      .max(50)
      .optional()
      .meta({ description: 'sweep: how many open-loop rates between the one-at-a-time and the throughput rate.' }),
    concurrency: positiveInt.optional(),
    rate: z.number().positive().optional().meta({ description: 'Requests per second (open loop).' }),
    arrival: z
      .enum(['constant', 'poisson', 'gamma'])
      .optional()
      .meta({ description: 'Open-loop arrivals (default poisson).' }),
    burstiness: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'Gamma shape: < 1 bursty, 1 = Poisson (default), > 1 regular.' }),
    max_concurrency: positiveInt
      .optional()
      .meta({ description: 'Open loop: arrivals beyond this many in flight are dropped (default 1000).' }),
    stages: z.array(stage).min(1).optional(),
    ...traceLoadFields,
  })
  .meta({
    id: 'load',
    description: 'How much load: { mode: concurrency, concurrency: 16 } or { mode: rate, rate: 20, arrival: poisson }.',
  });

const forbidden = (message: string) => z.never({ error: message }).optional();

/**
 * The chat completion fields of the spec (plus `stream_options`, which OpenAI-compatible servers share), as a
 * strict object: a typo such as `temprature` is an error here instead of a field a server silently ignores
 * or rejects at run time. A few are checked because a wrong value would silently change the run; the
 * server checks the rest. Fields the spec does not list go in `request_extra`.
 */
const specRequestFields = Object.fromEntries(
  CHAT_REQUEST_PARAMETERS.map((name) => [name, z.unknown().optional()]),
) as Record<(typeof CHAT_REQUEST_PARAMETERS)[number], z.ZodOptional<z.ZodUnknown>>;

const request = z
  .strictObject({
    ...specRequestFields,
    model: forbidden('model is set by scenarios[].models, not by request'),
    messages: forbidden('messages are built by the workload (prompt), not by request'),
    service_tier: forbidden('service_tier is set by scenarios[].tiers, not by request'),
    stream: z.boolean().optional(),
    stream_options: z.strictObject({ include_usage: z.boolean().optional() }).optional().meta({
      description: 'Sent as given; default with stream: { include_usage: true } unless target.stream_usage is false.',
    }),
    max_completion_tokens: positiveInt.optional(),
    temperature: z.number().min(0).optional(),
    top_p: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
  })
  .meta({
    id: 'request',
    description: 'Chat completion request fields of the API spec, sent with every request (stream defaults to true).',
  });

/** Fields the spec does not list (vLLM's ignore_eos, min_tokens, top_k, ...), sent as given to servers that take them. */
const requestExtra = z.record(z.string(), z.unknown()).meta({
  id: 'requestExtra',
  description:
    'Extra JSON fields sent with every request, for servers that take fields the API spec does not list (e.g. ignore_eos, min_tokens, top_k).',
});

const prompt = z
  .strictObject({
    input_tokens: lengthDistribution.optional(),
    output_tokens: lengthDistribution.optional().meta({ description: 'Sets max_completion_tokens per request.' }),
    shared_prefix_tokens: tokenCount
      .optional()
      .meta({ description: 'Tokens of a prefix identical for every request of the scenario.' }),
    prefixes: prefixesSchema.optional(),
    system: z.string().optional().meta({ description: 'A system message sent with every request.' }),
    dataset: datasetSchema.optional(),
    images: imagesSchema.optional(),
  })
  .meta({ id: 'prompt', description: 'What each request asks: synthetic token-exact text or a JSONL dataset.' });

const timeouts = z
  .strictObject({
    connect: duration.optional(),
    headers: duration.optional(),
    first_token: duration.optional(),
    idle: duration.optional(),
    total: duration.optional(),
  })
  .meta({
    id: 'timeouts',
    description: 'Per-request time limits (defaults: connect 10s, headers 60s, first_token 60s, idle 30s, total 600s).',
  });

const retry = z
  .strictObject({
    max_attempts: positiveInt.optional().meta({ description: '1 (default) = no retries.' }),
    on: z.array(z.enum(ERROR_CLASSES)).optional(),
    backoff: duration.optional(),
  })
  .meta({
    id: 'retry',
    description:
      'Retries (default none): latencies run from the request start to the final attempt; failed attempts stay counted.',
  });

const encoding = z
  .strictObject({
    content_type: z.enum(['json', 'msgpack']).optional(),
    gzip: z.boolean().optional(),
  })
  .meta({ id: 'encoding', description: 'Request body encoding (default json, no gzip).' });

const tiers = z.array(z.enum(SERVICE_TIERS as unknown as [ServiceTier, ...ServiceTier[]]));

/** A fraction of requests: 0.5 or "50%" (a percentage cannot be misread as a count). */
const FRACTION_MESSAGE = 'expected a fraction from 0 to 1 (0.5) or a percentage ("50%")';
const percentage = z.string().regex(/^\s*(?:100(?:\.0+)?|\d{1,2}(?:\.\d+)?)\s*%\s*$/, { error: FRACTION_MESSAGE });
const fraction = z.number().min(0).max(1);

const delayAbortEval = duration.optional().meta({
  description:
    'Grace period from the start of the measured part (warmup excluded) before it can stop the run (default 0).',
});

/** Stops a group that is only producing errors (k6's abortOnFail on an error rate, with a minimum sample). */
const maxErrorRate = z
  .union(
    [
      fraction,
      percentage,
      z.strictObject({
        rate: z.union([fraction, percentage], { error: FRACTION_MESSAGE }),
        min_requests: positiveInt
          .optional()
          .meta({ description: 'Ended requests (ok + failed) a group needs before it applies (default 20).' }),
        delay_abort_eval: delayAbortEval,
      }),
    ],
    { error: `${FRACTION_MESSAGE}, or { rate, min_requests, delay_abort_eval }` },
  )
  .meta({
    id: 'maxErrorRate',
    description:
      'Stop the run early (exit 3) when a group\'s error_rate exceeds this: "50%", 0.5 or { rate, min_requests: 20, delay_abort_eval: 0s }.',
  });

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Every key a scenario may set; `defaults` takes the same keys except name. */
const scenarioFields = {
  api: apiSchema.optional(),
  inputs_per_request: inputsPerRequestSchema.optional(),
  models: modelsSchema.optional(),
  tiers: tiers.optional().meta({ description: 'service_tier values; omitted: none sent.' }),
  load: load.optional(),
  duration: duration.optional(),
  requests: positiveInt.optional(),
  warmup: duration.optional(),
  warmup_requests: tokenCount.optional(),
  graceful_stop: duration.optional(),
  request: request.optional(),
  request_extra: requestExtra.optional(),
  prompt: prompt.optional(),
  timeouts: timeouts.optional(),
  retry: retry.optional(),
  encoding: encoding.optional(),
  seed: z.number().int().min(0).optional(),
  max_error_rate: maxErrorRate.optional(),
  session: sessionSchema.optional(),
  tool_loop: toolLoopSchema.optional(),
  reasoning_efforts: reasoningEffortsSchema.optional(),
  mix: z
    .array(
      z.strictObject({
        name: z.string().regex(NAME_PATTERN, { error: 'expected a name of letters, digits, ".", "_" and "-"' }),
        weight: z.number().positive().meta({ description: 'Share of the requests (weights are normalized).' }),
        prompt: prompt.optional(),
        request: request.optional(),
        request_extra: requestExtra.optional(),
      }),
    )
    .min(1)
    .optional()
    .meta({
      description:
        "Weighted request classes sharing the scenario's load: each request picks one by weight; each class is its own group.",
    }),
};

const scenario = z.strictObject({
  name: z.string().regex(NAME_PATTERN, { error: 'expected a name of letters, digits, ".", "_" and "-"' }),
  ...scenarioFields,
});

const headerValue = z.union([z.string(), z.number()]);

const pemPath = (what: string) =>
  z
    .string()
    .min(1)
    .optional()
    .meta({ description: `${what} (PEM file, relative to the profile).` });

const tls = z
  .strictObject({
    ca: pemPath("CA bundle that verifies the target's certificate, instead of the system CAs"),
    cert: pemPath('Client certificate for mutual TLS (with key)'),
    key: pemPath('Private key of the client certificate (with cert)'),
    insecure_skip_verify: z.boolean().optional().meta({
      description: 'Accept any server certificate (default false). Loudly warned about and recorded in summary.json.',
    }),
  })
  .meta({ description: 'TLS settings for an https target: CA bundle, client certificate (mTLS), verification.' });

const target = z.strictObject({
  base_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error: 'expected the NAME of an environment variable (the key itself never goes in a profile)',
    })
    .optional(),
  management_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error: 'expected the NAME of an environment variable (the key itself never goes in a profile)',
    })
    .optional()
    .meta({
      description:
        'Variable holding the management key, read only for models: { endpoints_of: ORG } (default INFERENCE_MANAGEMENT_KEY).',
    }),
  headers: z.record(z.string(), headerValue).optional(),
  tls: tls.optional(),
  stream_usage: z.boolean().optional().meta({
    description:
      'Streaming requests ask for usage with stream_options.include_usage (default true); false for a server that rejects the field.',
  }),
  request_id_header: z
    .union([
      z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { error: 'expected an HTTP header name' }),
      z.literal(false),
    ])
    .optional()
    .meta({
      description:
        'Header carrying a fresh id per request, recorded in requests.csv (default x-request-id); false sends none.',
    }),
  trace_context: z.boolean().optional().meta({
    description:
      'Every request carries a W3C traceparent with a fresh trace id, recorded in requests.csv as trace_id (default true); false sends none.',
  }),
  emulator_config: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Emulator YAML for the embedded emulator, relative to the profile.' }),
  tokenizer: z.string().min(1).optional().meta({
    description:
      "A Hugging Face tokenizer.json (the model's own), relative to the profile: counts tokens when the server sends no usage and for the usage check, and builds token-exact prompts. Default: o200k_base.",
  }),
  server_metrics: serverMetricsSchema.optional(),
});

/** A threshold: its expression, or k6's object form that can also stop the run when it fails. */
const threshold = z
  .union(
    [
      z.string(),
      z.strictObject({
        threshold: z
          .string()
          .meta({ description: '"[group-key:] metric[.stat] op number", e.g. "ttft_ms.p99 < 500".' }),
        abort_on_fail: z.boolean().optional().meta({
          description:
            'Check it every second during the run and stop the run (exit 99) as soon as it fails (default false).',
        }),
        delay_abort_eval: delayAbortEval,
      }),
    ],
    { error: 'expected "metric.stat op number" or { threshold, abort_on_fail, delay_abort_eval }' },
  )
  .meta({
    id: 'threshold',
    description:
      '"[group-key:] metric[.stat] op number", or { threshold: "ttft_ms.p99 < 500", abort_on_fail: true, delay_abort_eval: 10s }.',
  });

/** The whole profile as written. */
export const profileSchema = z
  .strictObject({
    name: z.string().regex(NAME_PATTERN, { error: 'expected a name of letters, digits, ".", "_" and "-"' }).optional(),
    target: target.optional().meta({ description: 'Omitted: the embedded emulator.' }),
    defaults: z.strictObject(scenarioFields).optional().meta({ description: 'Merged into every scenario.' }),
    scenarios: z.array(scenario).min(1, { error: 'a profile needs at least one scenario' }),
    thresholds: z.array(threshold).optional().meta({
      description:
        '"[group-key:] metric[.stat] op number" or { threshold, abort_on_fail, delay_abort_eval }; any failure exits 99.',
    }),
    fail_on_invalid: z.boolean().optional().meta({
      description:
        'true: a run that is not valid evidence (the harness was its own bottleneck, or arrivals were dropped at max_concurrency) exits 5, like `run --fail-on invalid`.',
    }),
    stop_when_decided: z.boolean().optional().meta({
      description:
        'true: stop the run as soon as every threshold of every group has passed or failed by a sequential test (error rates: capacity alpha, beta, indifference); a threshold no test can decide (a mean, max, throughput, ">") keeps the run going to its end.',
    }),
    slo: z
      .record(
        z.string().regex(new RegExp(METRIC_STAT_PATTERN), { error: 'expected metric.stat, e.g. ttft_ms.p99' }),
        z.number().nonnegative(),
      )
      .optional(),
    capacity: capacitySchema.optional(),
    deadlines: deadlinesSchema.optional(),
    pricing: pricingSchema.optional(),
    live: liveSchema.optional(),
    compare: z
      .strictObject({
        tolerances: z
          .record(
            z.string().regex(new RegExp(METRIC_OR_GROUP_VALUE_PATTERN), {
              error: 'expected metric.stat (e.g. ttft_ms.p99) or a group-level value',
            }),
            z.string().regex(/^\d+(?:\.\d+)?(?:%|us|ms|s)?$/, { error: 'expected a tolerance like "10%" or "5ms"' }),
          )
          .optional(),
      })
      .optional(),
  })
  .meta({ title: 'inferbench profile', description: 'A load-test profile for inferbench (see docs/profiles.md).' });

export type ProfileInput = z.infer<typeof profileSchema>;
export type ScenarioInput = z.infer<typeof scenario>;
export type ScenarioFieldsInput = Omit<ScenarioInput, 'name'>;
export type ThresholdInput = z.infer<typeof threshold>;
export type MaxErrorRateInput = z.infer<typeof maxErrorRate>;
