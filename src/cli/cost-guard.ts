/**
 * What `run` and `capacity` share about money, before the first request and while they run: the prices
 * (the profile's `pricing:` over the target's /public/v1/models), the spend estimate (printed on stderr
 * before a run against a target that is not local, and whenever --max-cost is given), the refusal of a run
 * whose estimate exceeds --max-cost (nothing sent: exit 4), and the meter and budget that price the run
 * and stop it when its spend reaches --max-cost. --max-cost is enforced against every target, local ones
 * too (only the unasked estimate is skipped there: a laptop's emulator costs nothing real).
 */
import { fetchCatalogPrices } from '../client/public-catalog.js';
import { pricedCollector } from '../aggregate/cost/cost-collector.js';
import { estimateCapacitySpend, estimateRunSpend, type SpendEstimate } from '../aggregate/cost/cost-estimate.js';
import { CostMeter, type SpendBudget } from '../aggregate/cost/cost-meter.js';
import { type PriceBook, priceBook } from '../aggregate/cost/cost-prices.js';
import { InferbenchError } from '../errors.js';
import { formatUsd } from '../report/summary-table.js';
import type { RunStopped } from '../metrics/run-summary.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import { nowUs } from '../util/clock.js';
import { requestHeaders } from '../runner/request-headers.js';
import { defaultRunnerDeps, type RunnerDeps } from '../runner/runner-deps.js';
import type { CliContext } from './context.js';
import type { TargetSession } from './target-session.js';
import { inferbenchVersion } from './version.js';

/** How a run is priced and held to its budget. */
export interface CostGuard {
  readonly meter: CostMeter;
  /** The prices the run is costed with (also requests.csv's cost_usd). */
  readonly book: PriceBook;
  /** The runner's deps with the priced collector (aggregate/cost/cost-collector.ts). */
  readonly deps: RunnerDeps;
  /** `--max-cost`, or null. */
  readonly budget: SpendBudget | null;
}

export interface CostGuardOptions {
  readonly profile: ResolvedProfile;
  readonly session: TargetSession;
  readonly ctx: CliContext;
  /** `--max-cost` in USD, or null. */
  readonly maxCostUsd: number | null;
  readonly quiet: boolean;
  readonly kind: 'run' | 'capacity';
  /** The share of the profile this process sends (`--shard i/N`: 1/N). */
  readonly share?: number;
}

/** `--max-cost USD` -> a positive number, or null when absent; exit 2 otherwise. */
export function parseMaxCost(value: unknown): number | null {
  if (value === undefined) return null;
  const usd = typeof value === 'number' ? value : Number(String(value).trim().replace(/^\$/, ''));
  if (!Number.isFinite(usd) || usd <= 0)
    throw new InferbenchError('BAD_USAGE', `--max-cost ${JSON.stringify(value)} is not a positive amount of USD`, {
      hint: 'e.g. --max-cost 5 (USD)',
    });
  return usd;
}

/** Prices the run, prints its estimate, and refuses it (null: exit 4) when the estimate exceeds --max-cost. */
export async function prepareCostGuard(options: CostGuardOptions): Promise<CostGuard | null> {
  const { profile, session, ctx, maxCostUsd } = options;
  const book = await loadPrices(profile, session);
  const full = options.kind === 'run' ? estimateRunSpend(profile, book) : estimateCapacitySpend(profile, book);
  const share = options.share ?? 1;
  const estimate: SpendEstimate = { ...full, usd: full.usd * share, requests: Math.round(full.requests * share) };
  if (maxCostUsd !== null && estimate.unpriced.length > 0)
    throw new InferbenchError(
      'BAD_USAGE',
      `--max-cost cannot be enforced: no price for ${estimate.unpriced.join(', ')} (neither the profile's pricing: nor the target's /public/v1/models has one)`,
      { hint: 'add it to the profile, e.g. pricing: { my-model: { prompt: "0.0000002", completion: "0.0000004" } }' },
    );
  const local = session.emulator !== null || isLocalTarget(session.target);
  if (!options.quiet && (!local || maxCostUsd !== null)) ctx.stderr.write(describeEstimate(estimate, book));
  if (maxCostUsd !== null && estimate.usd > maxCostUsd) {
    ctx.stderr.write(
      `inferbench: refused: the estimated spend ${formatUsd(estimate.usd)} exceeds --max-cost ${formatUsd(maxCostUsd)}; nothing was sent\n  hint: raise --max-cost, or lower the profile's duration, requests or load\n`,
    );
    return null;
  }
  const meter = new CostMeter(book);
  const deps: RunnerDeps = {
    ...defaultRunnerDeps,
    createCollector: (collector) => pricedCollector(defaultRunnerDeps.createCollector(collector), meter, collector),
  };
  return { meter, book, deps, budget: maxCostUsd === null ? null : meter.budget(maxCostUsd) };
}

/** The catalog is asked only when the profile does not price every model it names (or names none). */
async function loadPrices(profile: ResolvedProfile, session: TargetSession): Promise<PriceBook> {
  const priced = profile.pricing ?? {};
  const complete = profile.groups.every((group) => group.model !== null && priced[group.model] !== undefined);
  const catalog = complete
    ? null
    : await fetchCatalogPrices({
        baseUrl: session.target,
        headers: requestHeaders(inferbenchVersion(), profile.target.headers),
        tls: session.tls,
        proxy: session.proxy,
      });
  return priceBook(profile.pricing, catalog);
}

function describeEstimate(estimate: SpendEstimate, book: PriceBook): string {
  if (book.size === 0)
    return 'inferbench: no prices for the estimated spend (the target serves no /public/v1/models pricing); set pricing: in the profile\n';
  const sources = new Set([...book.values()].map((priced) => priced.source));
  const from = [...sources]
    .map((s) => (s === 'profile' ? "the profile's pricing" : "the target's catalog"))
    .join(' and ');
  const notes = [
    ...estimate.notes,
    ...(estimate.unpriced.length > 0 ? [`no price for ${estimate.unpriced.join(', ')}`] : []),
  ];
  return `inferbench: estimated spend ${formatUsd(estimate.usd)} for ~${estimate.requests} requests (prices from ${from}${notes.length > 0 ? `; ${notes.join('; ')}` : ''})\n`;
}

/** The embedded emulator, localhost and loopback addresses: no real money is spent there. */
export function isLocalTarget(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Runs `work` (a capacity search) under the budget: when the spend reaches it, the signal `work` got is
 * aborted, which ends the search as Ctrl-C would (steps so far kept). `stopped`: the budget's stop, or null.
 */
export async function withinBudget<T>(
  guard: CostGuard,
  interrupt: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ value: T; stopped: MaxCostStop | null; aborted: boolean }> {
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  if (interrupt.aborted) controller.abort();
  interrupt.addEventListener('abort', onInterrupt, { once: true });
  let stopped = null as MaxCostStop | null;
  const unwatch = watchBudget(guard, (stop) => {
    stopped = stop;
    controller.abort();
  });
  try {
    const value = await work(controller.signal);
    return { value, stopped, aborted: controller.signal.aborted };
  } finally {
    unwatch();
    interrupt.removeEventListener('abort', onInterrupt);
  }
}

/**
 * `capacity --max-cost`: the search is many short runs, so the budget is watched over the whole search
 * (every 250 ms) rather than by each step's runner; `onReached` gets the stop, once. Returns the unwatch.
 */
function watchBudget(guard: CostGuard, onReached: (stopped: MaxCostStop) => void): () => void {
  const budget = guard.budget;
  if (budget === null) return () => undefined;
  const startUs = nowUs();
  const timer = setInterval(() => {
    const atUs = nowUs();
    const spent = budget.spentUsd(atUs);
    if (spent < budget.maxUsd) return;
    clearInterval(timer);
    const atS = Math.round((atUs - startUs) / 1000) / 1000;
    onReached({ reason: 'max_cost', at_s: atS, max_cost_usd: budget.maxUsd, spent_usd: spent });
  }, 250);
  return () => clearInterval(timer);
}

export type MaxCostStop = Extract<RunStopped, { reason: 'max_cost' }>;
