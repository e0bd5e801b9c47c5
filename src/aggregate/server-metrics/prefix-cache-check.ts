/**
 * "Prefix caching confirmed": for a scenario whose workload aims at the prompt cache (`prompt.prefixes`,
 * `prompt.shared_prefix_tokens`, sessions and tool loops that resend their history), per phase the server's
 * view (`prefix_cache_hit_ratio`: hits / queries from its counters' increases) beside the client's over the
 * same requests (usage `prompt_tokens_details.cached_tokens` summed over the requests the server processed
 * between the two scrapes its counters were read at / their prompt tokens) and what the workload intended
 * (prompt.prefixes: the prefix tokens of those requests that carried one / their prompt tokens), and whether
 * client and server agree within PREFIX_CACHE_TOLERANCE. Pure: the runner tallies each finished request
 * (tallyCachedTokens) and hands the tally, the scrapes and the server's phase here. A ratio with nothing to
 * compute it from is absent, never 0.
 */
import type { EndpointLog } from '../../client/server-metrics/scraper.js';
import type { PrefixCacheSummary, ServerPhaseSummary } from '../../metrics/server-summary.js';
import type { ResolvedGroup, ResolvedProfile, ResolvedScenario } from '../../profile/resolved-profile.js';
import { counterSpanUs } from './server-window.js';

/**
 * Client and server agree when their ratios differ by at most this, absolutely (the edge agrees). The two
 * count the same tokens (vLLM's usage cached_tokens is the request's num_cached_tokens, its hits counter the
 * sum of them) over nearly the same requests, but not exactly: the client places a request by when its
 * first token arrived (the server counted it a little earlier, at scheduling), the counters count every
 * client of the endpoint, vLLM queries a preempted request again and recomputes the last block of a fully
 * cached prompt. A few points apart is that; more than 0.10 is a cache that did not do what the client was
 * told (a router spreading a prefix over replicas not scraped, usage written by another layer).
 */
export const PREFIX_CACHE_TOLERANCE = 0.1;
/** Floating-point slack, so that 0.6 - 0.5 (0.09999999999999998 or 0.10000000000000009) sits on the edge. */
const EDGE_SLACK = 1e-9;

/** What one group's requests aim at, or null when the group does not aim at the prompt cache. */
export interface CacheAim {
  /** Prefix tokens of a request that carries a prefix (prompt.prefixes); null: the intended share is not known. */
  readonly prefixTokens: number | null;
}

/** A group's aim: its mix class's prompt (or the scenario's) and the scenario's session or tool loop. */
export function cacheAimOf(scenario: ResolvedScenario, group: ResolvedGroup): CacheAim | null {
  const mixClass = group.mixClass == null ? undefined : scenario.mix?.find((c) => c.name === group.mixClass);
  const prompt = mixClass?.prompt ?? scenario.prompt;
  // A conversation resends its history: what it should find cached depends on the turns' lengths.
  const resends = scenario.session !== undefined || scenario.toolLoop !== undefined;
  if (prompt.prefixes !== undefined) return { prefixTokens: resends ? null : prompt.prefixes.tokens };
  if (resends || prompt.sharedPrefixTokens > 0) return { prefixTokens: null };
  return null;
}

/** Each group's aim, by group index. */
export function cacheAimsOf(profile: ResolvedProfile): (CacheAim | null)[] {
  const aims: (CacheAim | null)[] = [];
  for (const group of profile.groups) {
    const scenario = profile.scenarios.find((s) => s.name === group.scenario);
    aims[group.index] = scenario === undefined ? null : cacheAimOf(scenario, group);
  }
  return aims;
}

/** Sums over requests whose usage had prompt_tokens_details.cached_tokens. */
interface CacheSums {
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  /** Prefix tokens the workload put in those requests; NaN once a request's is not known. */
  intendedTokens: number;
}

const createSums = (): CacheSums => ({ requests: 0, promptTokens: 0, cachedTokens: 0, intendedTokens: 0 });

function addSums(into: CacheSums, from: CacheSums): void {
  into.requests += from.requests;
  into.promptTokens += from.promptTokens;
  into.cachedTokens += from.cachedTokens;
  into.intendedTokens += from.intendedTokens;
}

/** The finest slot, µs: finer would not place a request better than the client's own event loop does. */
const MIN_SLOT_US = 5_000;

/**
 * The slot the client's cached tokens are kept in, µs: a twentieth of the shortest scrape interval (50 ms
 * at the default 1 s), so a request is placed against a scrape to within a twentieth of the scrapes' spacing.
 */
export function cacheSlotUs(intervalsMs: readonly number[]): number {
  return Math.max(MIN_SLOT_US, (Math.min(1_000, ...intervalsMs) * 1000) / 20);
}

/** Numbers a slot holds: requests, prompt, cached and intended tokens. */
const FIELDS = 4;

/**
 * Sums per slot of time in one growing Float64Array, from the first slot that had a request to the last:
 * 32 bytes a slot whatever the rate (2.3 MB for an hour of 50 ms slots), never a request. An unknown
 * intended share is NaN and stays NaN in every sum it enters.
 */
export class SlotSums {
  #first = 0;
  #count = 0;
  #data = new Float64Array(0);

  constructor(readonly slotUs: number) {}

  add(atUs: number, sums: CacheSums): void {
    const slot = Math.floor(atUs / this.slotUs);
    this.#cover(slot);
    const i = (slot - this.#first) * FIELDS;
    const data = this.#data;
    data[i] = (data[i] as number) + sums.requests;
    data[i + 1] = (data[i + 1] as number) + sums.promptTokens;
    data[i + 2] = (data[i + 2] as number) + sums.cachedTokens;
    data[i + 3] = (data[i + 3] as number) + sums.intendedTokens;
  }

  /** The sums of the slots whose middle lies in (fromUs, toUs]. */
  between(fromUs: number, toUs: number): CacheSums {
    const out = createSums();
    const data = this.#data;
    for (let k = 0; k < this.#count; k++) {
      const middleUs = (this.#first + k + 0.5) * this.slotUs;
      if (!(middleUs > fromUs && middleUs <= toUs)) continue;
      const i = k * FIELDS;
      out.requests += data[i] as number;
      out.promptTokens += data[i + 1] as number;
      out.cachedTokens += data[i + 2] as number;
      out.intendedTokens += data[i + 3] as number;
    }
    return out;
  }

  /** Grows the array (doubling, either way) so that it holds `slot`. */
  #cover(slot: number): void {
    if (this.#count === 0) {
      this.#first = slot;
      this.#count = 1;
      this.#data = new Float64Array(64 * FIELDS);
      return;
    }
    const first = Math.min(this.#first, slot);
    const count = Math.max(this.#first + this.#count, slot + 1) - first;
    const capacity = this.#data.length / FIELDS;
    if (first === this.#first && count <= capacity) {
      this.#count = count;
      return;
    }
    const grown = new Float64Array(Math.max(count, 2 * capacity) * FIELDS);
    grown.set(this.#data.subarray(0, this.#count * FIELDS), (this.#first - first) * FIELDS);
    this.#data = grown;
    this.#first = first;
    this.#count = count;
  }
}

/**
 * One scenario's requests as the client saw them: per phase, and per slot of the instant the server had
 * processed the prompt (the first token; the end for an answer without one), so that they can be summed
 * over the instants the server's counters were read between.
 */
export interface CacheTally {
  /** A request of the scenario came from a group that aims at the cache. */
  aimed: boolean;
  readonly phases: { readonly warmup: CacheSums; readonly measured: CacheSums };
  readonly slots: SlotSums;
}

export function createCacheTally(slotUs: number): CacheTally {
  return { aimed: false, phases: { warmup: createSums(), measured: createSums() }, slots: new SlotSums(slotUs) };
}

/** A request's values as the tally reads them (RecordedValues' fields). */
export interface CacheValues {
  readonly input_tokens: number;
  readonly cached_tokens: number;
  /** The counts are the client's estimate: the server sent no usage. */
  readonly tokensEstimated: boolean;
}

/** One finished request as the tally reads it. */
export interface CachedRequest {
  readonly phase: 'warmup' | 'measured';
  /** When the server had processed its prompt (the first token, else the end), µs on the run's clock. */
  readonly prefilledUs: number;
  /** Its group's aim (null: a group that aims at nothing, intending 0 cached tokens). */
  readonly aim: CacheAim | null;
  readonly values: CacheValues;
  /** Its `prefix` label (`p<i>` or `none`; undefined without one). */
  readonly prefixLabel: string | undefined;
}

/** Adds one finished request; only an answer whose usage said cached_tokens counts. */
export function tallyCachedTokens(tally: CacheTally, request: CachedRequest): void {
  const { aim, values } = request;
  if (aim !== null) tally.aimed = true;
  if (values.tokensEstimated || !Number.isFinite(values.cached_tokens) || !(values.input_tokens > 0)) return;
  let intended = 0;
  if (aim !== null) {
    if (aim.prefixTokens === null) intended = Number.NaN;
    else if (request.prefixLabel !== undefined && request.prefixLabel !== 'none') intended = aim.prefixTokens;
  }
  const one = {
    requests: 1,
    promptTokens: values.input_tokens,
    cachedTokens: values.cached_tokens,
    intendedTokens: intended,
  };
  addSums(tally.phases[request.phase], one);
  if (Number.isFinite(request.prefilledUs)) tally.slots.add(request.prefilledUs, one);
}

/** The server's hit ratio of a phase: the counters' hits / queries, or a hit-rate gauge's mean (SGLang). */
function serverHitRatio(phase: ServerPhaseSummary): number | undefined {
  const concept = phase.concepts.prefix_cache_hit_ratio;
  if (concept?.kind === 'ratio') return concept.value ?? undefined;
  if (concept?.kind === 'gauge') return concept.mean ?? undefined;
  return undefined;
}

const seconds = (us: number, runStartUs: number): number => Math.round((us - runStartUs) / 1000) / 1000;

/** Where and when a phase's server side was read. */
export interface CheckedPhase {
  readonly name: 'warmup' | 'measured';
  /** The phase's window on the run's clock (its first intended start to its last end). */
  readonly fromUs: number;
  readonly toUs: number;
  /** The server over it (server-summary.ts serverPhase). */
  readonly server: ServerPhaseSummary;
}

/** The instants the hit ratio's counters were read between, from the endpoint that gave it; null without counters. */
function countedSpan(logs: readonly EndpointLog[], phase: CheckedPhase): { fromUs: number; toUs: number } | null {
  const concept = phase.server.concepts.prefix_cache_hit_ratio;
  if (concept?.kind !== 'ratio') return null;
  const log = logs.find((l) => l.url === concept.endpoint);
  return log === undefined ? null : counterSpanUs(log, phase.fromUs, phase.toUs);
}

/**
 * The check of one phase, or null when no request of the scenario aimed at the cache. With the server's
 * counters the client's side is summed over the requests processed between the same two scrapes (warmup
 * requests included when the first scrape was before the phase), so both count the same requests; otherwise
 * over the phase's requests. Each ratio is present only when it could be computed; `difference` (server -
 * client) and `agree` only with both.
 */
export function prefixCacheCheck(
  tally: CacheTally,
  logs: readonly EndpointLog[],
  phase: CheckedPhase,
  runStartUs: number,
): PrefixCacheSummary | null {
  if (!tally.aimed) return null;
  const counted = countedSpan(logs, phase);
  const sums = counted === null ? tally.phases[phase.name] : tally.slots.between(counted.fromUs, counted.toUs);
  const client = sums.promptTokens > 0 ? sums.cachedTokens / sums.promptTokens : undefined;
  const intended =
    sums.promptTokens > 0 && Number.isFinite(sums.intendedTokens) ? sums.intendedTokens / sums.promptTokens : undefined;
  const server = serverHitRatio(phase.server);
  const difference = client !== undefined && server !== undefined ? server - client : undefined;
  const window = counted ?? phase;
  return {
    from_s: seconds(window.fromUs, runStartUs),
    to_s: seconds(window.toUs, runStartUs),
    client_requests: sums.requests,
    client_prompt_tokens: sums.promptTokens,
    client_cached_tokens: sums.cachedTokens,
    ...(client === undefined ? {} : { client_cached_ratio: client }),
    ...(server === undefined ? {} : { server_hit_ratio: server }),
    ...(intended === undefined ? {} : { intended_ratio: intended }),
    tolerance: PREFIX_CACHE_TOLERANCE,
    ...(difference === undefined
      ? {}
      : { difference, agree: Math.abs(difference) <= PREFIX_CACHE_TOLERANCE + EDGE_SLACK }),
  };
}

/** Every scenario's tally, created with its first request: what the runner keeps. */
export class PrefixCacheTallies {
  readonly #byScenario = new Map<string, CacheTally>();

  /** `slotUs`: cacheSlotUs of the endpoints' intervals. */
  constructor(readonly slotUs: number) {}

  add(scenario: string, request: CachedRequest): void {
    let tally = this.#byScenario.get(scenario);
    if (tally === undefined) {
      tally = createCacheTally(this.slotUs);
      this.#byScenario.set(scenario, tally);
    }
    tallyCachedTokens(tally, request);
  }

  /** `server` with the scenario's check of the phase added (as it was when the scenario aims at no cache). */
  withCheck(
    scenario: string,
    logs: readonly EndpointLog[],
    phase: CheckedPhase,
    runStartUs: number,
  ): ServerPhaseSummary {
    const tally = this.#byScenario.get(scenario);
    const check = tally === undefined ? null : prefixCacheCheck(tally, logs, phase, runStartUs);
    return check === null ? phase.server : { ...phase.server, prefix_cache: check };
  }
}

const fixed = (x: number): string => x.toFixed(3);

/** The run warning when a phase's client and server disagree (null when they agree or cannot be compared). */
export function prefixCacheWarning(scenario: string, phaseName: string, phase: ServerPhaseSummary): string | null {
  const check = phase.prefix_cache;
  const client = check?.client_cached_ratio;
  const server = check?.server_hit_ratio;
  if (check?.agree !== false || client === undefined || server === undefined) return null;
  const sources = phase.concepts.prefix_cache_hit_ratio?.sources.join(' / ') ?? '';
  return (
    `prefix cache, scenario ${scenario} (${phaseName}): the client saw ${fixed(client)} of its prompt tokens cached ` +
    `(usage cached_tokens: ${check.client_cached_tokens} of ${check.client_prompt_tokens}, ${check.client_requests} requests), ` +
    `the server ${fixed(server)} (${sources}); they differ by ${fixed(Math.abs(server - client))}, more than the tolerance ` +
    `of ${PREFIX_CACHE_TOLERANCE.toFixed(2)}: the server's counters may count other clients or replicas (labels:), ` +
    `or the usage does not come from the engine scraped`
  );
}
