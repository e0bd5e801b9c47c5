/**
 * The human description of a resolved profile that `inferbench validate` prints: every scenario with its
 * load, limits, prompt, request fields and groups, then thresholds, SLOs and compare tolerances, so a user
 * sees exactly what a run would do (defaults included) before sending anything.
 */
import { API_PATHS, type ApiKind } from '../protocol/apis.js';
import { formatDurationMs } from '../util/duration.js';
import { formatLength } from './field-kinds.js';
import type { LoadSpec, MaxErrorRateSpec, ResolvedProfile, ResolvedScenario } from './resolved-profile.js';
import { formatCapacityPlan } from './sections/capacity.js';
import { formatConversation } from './sections/conversation.js';
import { formatDataset } from './sections/dataset.js';
import { formatDimensions } from './sections/dimensions.js';
import { formatImages } from './sections/images.js';
import { formatModelSelector, modelSelectorSource } from './sections/models.js';
import { formatServerMetrics } from './sections/server-metrics.js';
import { formatTraceLoad, formatTracePrompt } from './sections/trace/trace.js';

const LABEL_WIDTH = 11;
const row = (label: string, value: string): string => `  ${label.padEnd(LABEL_WIDTH)}${value}\n`;
const duration = (ms: number): string => formatDurationMs(ms);

export function formatLoad(load: LoadSpec): string {
  const stages = load.stages
    ? `; stages: ${load.stages.map((s) => `${duration(s.durationMs)} ${s.ramp === 'linear' ? 'ramp to' : 'hold'} ${s.target}${load.mode === 'rate' ? '/s' : ''}`).join(', ')}`
    : '';
  if (load.mode === 'rate' && load.trace !== undefined) return formatTraceLoad(load.trace, load.maxConcurrency);
  if (load.mode === 'concurrency')
    return `closed loop, ${load.stages ? `up to ${load.concurrency}` : load.concurrency} concurrent${stages}`;
  const arrival =
    load.arrival === 'gamma' ? `gamma arrivals (burstiness ${load.burstiness})` : `${load.arrival} arrivals`;
  return `open loop, ${load.stages ? `up to ${load.rate}` : load.rate} requests/s, ${arrival}, at most ${load.maxConcurrency} in flight (more are dropped)${stages}`;
}

function formatLimits(s: ResolvedScenario): string {
  const parts = [
    `duration ${s.durationMs === null ? '-' : duration(s.durationMs)}`,
    `requests ${s.requests ?? '-'}`,
    s.warmupRequests > 0
      ? `warmup ${s.warmupRequests} requests`
      : s.warmupMs > 0
        ? `warmup ${duration(s.warmupMs)}`
        : 'no warmup',
    `graceful stop ${duration(s.gracefulStopMs)}`,
  ];
  if (s.durationMs !== null && s.requests !== null) parts.push('whichever comes first');
  return parts.join(', ');
}

function formatPrompt(s: ResolvedScenario): string {
  const p = s.prompt;
  if (s.load.mode === 'rate' && s.load.trace !== undefined) return formatTracePrompt(s.load.trace, p.system);
  const parts = p.dataset ? [formatDataset(p.dataset)] : [`input ${formatLength(p.inputTokens)}`];
  if (p.dataset?.outputTokens !== 'dataset')
    parts.push(p.outputTokens ? `output ${formatLength(p.outputTokens)} (max_completion_tokens)` : 'output: not set');
  if (p.sharedPrefixTokens > 0) parts.push(`shared prefix ${p.sharedPrefixTokens} tokens`);
  if (p.prefixes !== undefined)
    parts.push(
      `${p.prefixes.groups} prefixes of ${p.prefixes.tokens} tokens (${Math.round(p.prefixes.share * 1000) / 10}% of requests)`,
    );
  if (p.system !== null)
    parts.push(`system prompt ${JSON.stringify(p.system.length > 40 ? `${p.system.slice(0, 40)}...` : p.system)}`);
  if (p.images !== undefined) parts.push(formatImages(p.images));
  return parts.join('; ');
}

function formatMaxErrorRate(m: MaxErrorRateSpec): string {
  const after = m.delayMs > 0 ? ` and ${duration(m.delayMs)}` : '';
  return `when a group's error rate exceeds ${Math.round(m.rate * 10_000) / 100}% (after ${m.minRequests} requests${after})`;
}

function formatRequest(s: ResolvedScenario, bodyShape: ApiBodyShape | undefined): string {
  if (s.api === undefined || bodyShape === undefined) return JSON.stringify(s.request);
  // Each request's output length (the prompt row's) is its max_completion_tokens, under the API's own name.
  const output = s.prompt.outputTokens || s.prompt.dataset?.outputTokens === 'dataset';
  const request = output ? { ...s.request, max_completion_tokens: '<output>' } : s.request;
  return `${JSON.stringify(bodyShape(s.api, request))} (the ${s.api} body, the workload's prompt and output length in place of "<prompt>" and "<output>")`;
}

function formatScenario(s: ResolvedScenario, groupKeys: readonly string[], bodyShape?: ApiBodyShape): string {
  const t = s.timeouts;
  const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const selector = s.models.length === 0 ? s.modelSelector : undefined;
  const models =
    s.models.length > 0
      ? plural(s.models.length, 'model')
      : selector
        ? `models: ${formatModelSelector(selector)}`
        : "the target's first model";
  const matrix = `${models} x ${s.tiers.length > 0 ? plural(s.tiers.length, 'tier') : 'no tier'}`;
  const groups = selector
    ? 'a group per model and tier'
    : `${groupKeys.length} group${groupKeys.length === 1 ? '' : 's'}`;
  return (
    `scenario ${s.name} (${matrix}: ${groups})\n` +
    (selector
      ? row(
          'models',
          `${formatModelSelector(selector)}: resolved at run time from ${modelSelectorSource(selector)}; each model is its own group ("*" below)`,
        )
      : '') +
    // api: only when not chat (the plans of chat profiles read as before).
    (s.api !== undefined
      ? row(
          'api',
          `${s.api} (POST ${API_PATHS[s.api]}${s.inputsPerRequest !== undefined ? `; ${s.inputsPerRequest} inputs per request` : ''}; see docs/apis.md)`,
        )
      : '') +
    row('load', formatLoad(s.load)) +
    row('limits', formatLimits(s)) +
    row('prompt', formatPrompt(s)) +
    row('request', formatRequest(s, bodyShape)) +
    (Object.keys(s.requestExtra).length > 0
      ? row('extra', `${JSON.stringify(s.requestExtra)} (not in the API spec: sent as given)`)
      : '') +
    row(
      'timeouts',
      `connect ${duration(t.connectMs)}, headers ${duration(t.headersMs)}, first token ${duration(t.firstTokenMs)}, idle ${duration(t.idleMs)}, total ${duration(t.totalMs)}`,
    ) +
    row(
      'retry',
      s.retry.maxAttempts <= 1
        ? 'none'
        : `up to ${s.retry.maxAttempts} attempts on ${s.retry.on.join(', ')}, backoff ${duration(s.retry.backoffMs)}`,
    ) +
    row('encoding', `${s.encoding.contentType}${s.encoding.gzip ? ' + gzip' : ''}`) +
    row('seed', String(s.seed)) +
    formatDimensions(s, formatPrompt) +
    formatConversation(s) +
    (s.maxErrorRate ? row('stop early', formatMaxErrorRate(s.maxErrorRate)) : '') +
    row('groups', groupKeys.join(', '))
  );
}

/** The plan as text (ends with a newline). */
/**
 * The body a non-chat scenario's API sends for its request fields (workload/apis/api-bodies.ts bodyShape,
 * given by the caller: profile/ does not build bodies); without it the plan shows the request fields as
 * the chat body carries them.
 */
export type ApiBodyShape = (api: ApiKind, request: Readonly<Record<string, unknown>>) => Record<string, unknown>;

export function formatProfilePlan(profile: ResolvedProfile, bodyShape?: ApiBodyShape): string {
  const target = profile.target;
  let out = `profile ${profile.name}${profile.sourcePath ? ` (${profile.sourcePath})` : ''}\n`;
  out += `target: ${target.baseUrl ?? `the embedded emulator${target.emulatorConfig ? ` with ${target.emulatorConfig}` : ''}`}`;
  out += target.baseUrl ? `, API key from $${target.apiKeyEnv}` : '';
  const managed = profile.scenarios.some((scenario) => scenario.modelSelector?.kind === 'endpoints_of');
  out += target.baseUrl && managed ? `, management key from $${target.managementKeyEnv}` : '';
  const headers = Object.keys(target.headers);
  out += headers.length > 0 ? `, headers: ${headers.join(', ')}\n` : '\n';
  const otherApi = profile.scenarios.find((scenario) => scenario.api !== undefined)?.api;
  if (target.baseUrl === null && otherApi !== undefined)
    out += `  the embedded emulator serves only chat completions: run needs --base-url for api: ${otherApi}\n`;
  out += formatServerMetrics(target.serverMetrics);
  for (const scenario of profile.scenarios) {
    out += `\n${formatScenario(
      scenario,
      profile.groups.filter((g) => g.scenario === scenario.name).map((g) => g.key),
      bodyShape,
    )}`;
  }
  out += '\n';
  out += `thresholds:${profile.thresholds.length === 0 ? ' none' : ''}\n`;
  for (const t of profile.thresholds) {
    const abort = t.abortOnFail
      ? `, stops the run when it fails${t.abortOnFail.delayMs > 0 ? ` (after ${duration(t.abortOnFail.delayMs)})` : ''}`
      : '';
    out += `  ${t.group ? `${t.group}: ` : ''}${t.metric}${t.stat ? `.${t.stat}` : ''} ${t.op} ${t.value}${t.group ? '' : ' (every group)'}${abort}\n`;
  }
  const slo = Object.entries(profile.slo);
  out += `slo: ${slo.length === 0 ? 'none (goodput = throughput)' : slo.map(([k, v]) => `${k} <= ${v}`).join(', ')}\n`;
  const tolerances = Object.entries(profile.compare.tolerances);
  out += `compare tolerances: ${tolerances.length === 0 ? 'defaults of compare' : tolerances.map(([k, v]) => `${k} ${v}`).join(', ')}\n`;
  out += formatCapacityPlan(profile);
  return out;
}
