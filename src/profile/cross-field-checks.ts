/**
 * The rules a per-field schema cannot express: unique scenario names, a limit on every scenario (after
 * defaults), load fields that fit the load mode, min <= max, threshold grammar, files that must exist.
 * Runs on the data whether or not the schema passed, defensively, so that one run lists every problem.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { mergeScenario } from './merge-scenario.js';
import { parseThreshold } from './parse-threshold.js';
import type { ProfileIssue } from './profile-issue.js';
import { checkApiFeatures, checkInputsPerRequest } from './sections/api.js';
import { checkAnswerSchemas } from './sections/answer-schemas.js';
import { checkCapacity } from './sections/capacity.js';
import { checkConversation } from './sections/conversation.js';
import { checkDataset } from './sections/dataset.js';
import { checkFluidityNeedsDeadlines } from './sections/deadlines.js';
import { checkGroupDimensions, groupKeyHeads, headHint } from './sections/dimensions.js';
import { checkImages } from './sections/images.js';
import { checkPrefixes } from './sections/prefixes.js';
import { checkServerMetrics } from './sections/server-metrics.js';
import { checkTraceScenario } from './sections/trace/trace.js';
import { createTraceReader, type TraceReader } from './sections/trace/trace-file.js';
import { checkScenarioWorkload, type WorkloadChecks } from './sections/workload.js';

/**
 * The sections' rules of what a scenario (or each mix class of it) sends, in the order they report, run by
 * sections/workload.ts on each set of merged fields.
 */
const WORKLOAD_CHECKS: WorkloadChecks = {
  fields: [
    (f, pathOf, context) => {
      const prompt = isRecord(f.prompt) ? f.prompt : {};
      return checkDataset(prompt.dataset, (key) => [...pathOf('prompt', 'dataset'), key], context);
    },
    (f, pathOf) => checkImages(isRecord(f.prompt) ? f.prompt.images : undefined, pathOf('prompt', 'images')),
    (f, pathOf) => checkPrefixes(isRecord(f.prompt) ? f.prompt : {}, f.request, pathOf),
    (f, pathOf) => checkConversation(f, pathOf),
    (f, pathOf) => checkApiFeatures(f, pathOf),
    (f, pathOf) => checkInputsPerRequest(f, pathOf),
  ],
  classRequest: checkAnswerSchemas,
};

/** Headers that carry credentials: keys come from the environment only, never from a profile. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'cookie']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every cross-field issue of `data` (validated or not). `traces` reads the trace files the profile replays
 * (the resolution takes the same records, so each file is read once).
 */
export function crossFieldChecks(
  data: unknown,
  baseDir: string,
  traces: TraceReader = createTraceReader(),
): ProfileIssue[] {
  if (!isRecord(data)) return [];
  const issues: ProfileIssue[] = [];
  const scenarios = Array.isArray(data.scenarios) ? data.scenarios : [];
  const names = new Map<string, number>();
  scenarios.forEach((scenario, i) => {
    if (!isRecord(scenario)) return;
    if (typeof scenario.name === 'string') {
      const first = names.get(scenario.name);
      if (first !== undefined)
        issues.push({
          path: ['scenarios', i, 'name'],
          message: `duplicate scenario name "${scenario.name}" (also scenarios[${first}])`,
        });
      else names.set(scenario.name, i);
    }
    issues.push(...checkScenario(data.defaults, scenario, i, baseDir, traces));
    issues.push(...checkGroupDimensions(data.defaults, scenario, i));
    issues.push(...checkAnswerSchemas(scenario.request, ['scenarios', i, 'request']));
  });
  if (isRecord(data.defaults)) issues.push(...checkAnswerSchemas(data.defaults.request, ['defaults', 'request']));
  // Threshold keys start with a scenario's name, or "scenario[.class][.effort]" (sections/dimensions.ts).
  const keyHeads = groupKeyHeads(data.defaults, scenarios);
  issues.push(...keyHeads.issues);
  if (Array.isArray(data.thresholds)) issues.push(...checkThresholds(data.thresholds, keyHeads.heads));
  issues.push(...checkFluidityNeedsDeadlines(data));
  issues.push(...checkCapacity(data.capacity));
  const target = data.target;
  if (isRecord(target)) {
    if (target.base_url !== undefined && target.emulator_config !== undefined) {
      issues.push({
        path: ['target', 'emulator_config'],
        message: 'applies only to the embedded emulator; remove it or remove target.base_url',
      });
    }
    if (isRecord(target.headers)) {
      for (const header of Object.keys(target.headers)) {
        if (SECRET_HEADERS.has(header.toLowerCase())) {
          issues.push({
            path: ['target', 'headers', header],
            atKey: true,
            message: 'keys never go in a profile: name the environment variable in target.api_key_env',
          });
        }
      }
    }
    if (typeof target.emulator_config === 'string' && !existsSync(resolve(baseDir, target.emulator_config))) {
      issues.push({
        path: ['target', 'emulator_config'],
        message: `file not found: ${resolve(baseDir, target.emulator_config)}`,
      });
    }
    if (typeof target.tokenizer === 'string' && !existsSync(resolve(baseDir, target.tokenizer))) {
      issues.push({ path: ['target', 'tokenizer'], message: `file not found: ${resolve(baseDir, target.tokenizer)}` });
    }
    if (isRecord(target.tls)) issues.push(...checkTls(target.tls, baseDir));
    issues.push(...checkServerMetrics(target.server_metrics));
  }
  return issues;
}

/**
 * Each threshold's grammar and group, in its string or object form (the problem then points at the
 * object's `threshold`); a grace period without abort_on_fail would silently do nothing.
 */
function checkThresholds(thresholds: unknown[], scenarioNames: ReadonlyMap<string, number>): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  thresholds.forEach((item, i) => {
    const object = isRecord(item) ? item : null;
    const expression = object ? object.threshold : item;
    if (typeof expression !== 'string') return;
    const path = object ? ['thresholds', i, 'threshold'] : ['thresholds', i];
    const parsed = parseThreshold(expression);
    if (!parsed.ok) issues.push({ path, message: parsed.message });
    else if (parsed.spec.group !== null && !scenarioNames.has(parsed.spec.group.split('/')[0]!))
      issues.push({
        path,
        message: `group "${parsed.spec.group}" names no scenario of this profile${headHint(parsed.spec.group, scenarioNames)}`,
      });
    if (object && object.delay_abort_eval !== undefined && object.abort_on_fail !== true)
      issues.push({
        path: ['thresholds', i, 'delay_abort_eval'],
        atKey: true,
        message: 'applies only with abort_on_fail: true (the grace period before the threshold may stop the run)',
      });
  });
  return issues;
}

/** target.tls: every PEM file named must be readable (its contents are checked when the client loads it); cert and key go together. */
function checkTls(tls: Record<string, unknown>, baseDir: string): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  for (const key of ['ca', 'cert', 'key']) {
    const file = tls[key];
    if (typeof file !== 'string' || file === '') continue;
    const path = resolve(baseDir, file);
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      issues.push({
        path: ['target', 'tls', key],
        message: code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path} (${code ?? 'error'})`,
      });
    }
  }
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    const missing = tls.cert === undefined ? 'cert' : 'key';
    issues.push({
      path: ['target', 'tls', missing === 'cert' ? 'key' : 'cert'],
      atKey: true,
      message: `a client certificate needs both cert and key; ${missing} is missing`,
    });
  }
  return issues;
}

/** A scenario's `load`: keys that belong to its mode, and what each mode needs. */
function checkLoad(
  load: Record<string, unknown>,
  given: boolean,
  hasStages: boolean,
  loadPath: (...rest: string[]) => ReturnType<ReturnType<typeof mergeScenario>['pathOf']>,
): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  const mode = load.mode ?? (load.rate !== undefined || load.arrival !== undefined ? 'rate' : 'concurrency');
  if (mode === 'concurrency') {
    for (const key of ['rate', 'arrival', 'burstiness', 'max_concurrency']) {
      if (load[key] !== undefined)
        issues.push({
          path: loadPath(key),
          atKey: true,
          message: `applies to mode: rate only (this load is a closed loop, mode: concurrency)`,
        });
    }
    if (load.concurrency === undefined && !hasStages && given)
      issues.push({ path: loadPath(), message: 'mode concurrency needs concurrency (or stages)' });
  } else if (mode === 'rate') {
    if (load.concurrency !== undefined)
      issues.push({
        path: loadPath('concurrency'),
        atKey: true,
        message: 'applies to mode: concurrency; an open loop caps requests in flight with max_concurrency',
      });
    if (load.rate === undefined && !hasStages)
      issues.push({ path: loadPath(), message: 'mode rate needs rate (or stages)' });
    if (load.burstiness !== undefined && load.arrival !== 'gamma')
      issues.push({ path: loadPath('burstiness'), atKey: true, message: 'applies to arrival: gamma only' });
  } else if (mode === 'throughput' || mode === 'sweep') {
    // Their loads are measured, not set: a rate, a concurrency or stages would be ignored.
    for (const key of ['rate', 'concurrency', 'stages'])
      if (load[key] !== undefined)
        issues.push({ path: loadPath(key), atKey: true, message: `does not apply to mode: ${String(mode)}` });
    if (mode === 'throughput' && (load.arrival !== undefined || load.burstiness !== undefined))
      issues.push({
        path: loadPath(),
        message: 'mode throughput is a closed loop: arrival and burstiness do not apply',
      });
  }
  if (load.steps !== undefined && mode !== 'sweep')
    issues.push({ path: loadPath('steps'), atKey: true, message: 'applies to mode: sweep only' });
  if (hasStages) {
    const stageKey = mode === 'rate' ? 'rate' : 'concurrency';
    const otherKey = mode === 'rate' ? 'concurrency' : 'rate';
    (load.stages as unknown[]).forEach((stage, s) => {
      if (!isRecord(stage)) return;
      const stagePath = loadPath('stages');
      if (stage[stageKey] === undefined)
        issues.push({ path: [...stagePath, s], message: `a stage of a mode ${String(mode)} load needs ${stageKey}` });
      if (stage[otherKey] !== undefined)
        issues.push({
          path: [...stagePath, s, otherKey],
          atKey: true,
          message: `use ${stageKey} in the stages of a mode ${String(mode)} load`,
        });
    });
  }
  return issues;
}

function checkScenario(
  defaults: unknown,
  scenario: Record<string, unknown>,
  index: number,
  baseDir: string,
  traces: TraceReader,
): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  const merged = mergeScenario(defaults, scenario, index);
  const f = merged.fields;
  const load = isRecord(f.load) ? f.load : {};
  const hasStages = Array.isArray(load.stages) && load.stages.length > 0;
  // A trace replay ends with its trace.
  if (f.duration === undefined && f.requests === undefined && !hasStages && load.mode !== 'trace') {
    issues.push({ path: ['scenarios', index], message: 'needs duration and/or requests (here or in defaults)' });
  }
  if (f.warmup !== undefined && f.warmup_requests !== undefined) {
    issues.push({ path: merged.pathOf('warmup_requests'), message: 'set warmup or warmup_requests, not both' });
  }
  issues.push(...checkLoad(load, isRecord(f.load), hasStages, (...rest) => merged.pathOf('load', ...rest)));
  issues.push(...checkTraceScenario(f, merged.pathOf, baseDir, traces));
  issues.push(...checkScenarioWorkload(merged, index, baseDir, WORKLOAD_CHECKS));
  for (const key of ['models', 'tiers']) {
    const list = f[key];
    if (Array.isArray(list)) {
      const seen = new Set<unknown>();
      list.forEach((item, i) => {
        if (seen.has(item))
          issues.push({ path: [...merged.pathOf(key), i], message: `"${String(item)}" is listed twice` });
        seen.add(item);
      });
    }
  }
  return issues;
}
