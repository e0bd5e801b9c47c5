/**
 * The capacity search planner: which load to run next, from the outcomes so far. A pure state machine
 * (no clock, no I/O; the runner runs the steps): probe geometrically up from the start while steps pass,
 * or down (divide by the growth factor) while they fail, until a pass and a fail bracket the capacity; then
 * bisect the bracket (geometric mean for rates, which are probed on a log scale; integer midpoint for
 * concurrency) until firstFail / lastPass - 1 <= resolution or maxSteps steps have run. Every load it asks
 * for lies strictly inside the current bracket, so no load repeats. An inconclusive step (the harness was
 * its own bottleneck, say) ends the search: a load that cannot be judged cannot be bisected around. An
 * undecided step (its tests ran to the step's cap without deciding: the load's share over the limit is
 * near the allowed one) is no pass and no failure: it is a ceiling, the search goes on below it (down
 * from it, or bisecting between the highest pass and it), so the search still ends with a pass below it
 * (a lower bound) or a bracket.
 * Rates are rounded to 3 significant digits for readable reports, unless that would leave the bracket.
 */
import { InferbenchError } from '../../errors.js';
import { SEARCH_GROWTH } from './step-length.js';

export interface SearchOptions {
  /** First load (from a calibration probe). */
  readonly start: number;
  /** Concurrency: whole numbers >= 1. */
  readonly integer: boolean;
  /** Relative, e.g. 0.05: stop when firstFail / lastPass - 1 <= resolution. */
  readonly resolution: number;
  /** E.g. 12. */
  readonly maxSteps: number;
  /** Smallest load worth trying (e.g. 1 concurrency, or 0.05 req/s). */
  readonly min: number;
  /** Largest (e.g. 4096). */
  readonly max: number;
  /** Geometric factor while probing, default 2. */
  readonly growth?: number;
  /** Why `min` is where it is, appended to the end reason when a step fails (or is undecided) there. */
  readonly minNote?: string;
}

/** `undecided`: the step's tests ran to its cap without deciding; `inconclusive`: it could not be judged. */
export type StepOutcome = 'pass' | 'fail' | 'undecided' | 'inconclusive';

export interface SearchStep {
  readonly load: number;
  readonly outcome: StepOutcome;
}

type Plan = { readonly load: number } | { readonly end: string };

export class CapacitySearch {
  readonly #options: Required<SearchOptions>;
  readonly #history: SearchStep[] = [];
  #lastPass: number | null = null;
  #firstFail: number | null = null;
  /** The lowest undecided load above the highest pass. */
  #ceiling: number | null = null;
  #plan: Plan;

  constructor(options: SearchOptions) {
    this.#options = validate(options);
    const { start, min, max } = this.#options;
    this.#plan = { load: this.#round(Math.min(max, Math.max(min, start))) };
  }

  /** The next load to run, or null when the search is over (the same load until it is recorded). */
  next(): number | null {
    return 'load' in this.#plan ? this.#plan.load : null;
  }

  /** Records a step's outcome and plans the next; the load need not be the one `next` gave (e.g. a confirmation). */
  record(load: number, outcome: StepOutcome, note?: string): void {
    this.#history.push({ load, outcome });
    if (outcome === 'inconclusive') {
      this.#plan = { end: `inconclusive at ${load}${note ? ` (${note})` : ''}` };
      return;
    }
    if (outcome === 'pass') this.#lastPass = Math.max(this.#lastPass ?? load, load);
    // The lowest failure above the highest pass brackets the capacity (a lower failure would be noise).
    const fails = this.#history.filter((step) => step.outcome === 'fail' && step.load > (this.#lastPass ?? 0));
    this.#firstFail = fails.length === 0 ? null : Math.min(...fails.map((step) => step.load));
    const undecided = this.#history.filter((s) => s.outcome === 'undecided' && s.load > (this.#lastPass ?? 0));
    this.#ceiling = undecided.length === 0 ? null : Math.min(...undecided.map((step) => step.load));
    if ('end' in this.#plan) return;
    this.#plan = this.#planNext();
  }

  get lastPass(): number | null {
    return this.#lastPass;
  }

  get firstFail(): number | null {
    return this.#firstFail;
  }

  /** Why it ended ("resolved to 5%", "max steps", ...), or null while it goes on. */
  get endReason(): string | null {
    return 'end' in this.#plan ? this.#plan.end : null;
  }

  /** Every step so far, in order. */
  get history(): readonly SearchStep[] {
    return this.#history;
  }

  #planNext(): Plan {
    const { growth, min, max, maxSteps, integer, resolution, minNote } = this.#options;
    const pass = this.#lastPass;
    // The lowest load above the highest pass that did not pass: a failure, or an undecided step.
    const ceiling = this.#ceiling !== null && (this.#firstFail ?? Number.POSITIVE_INFINITY) > this.#ceiling;
    const fail = ceiling ? this.#ceiling : this.#firstFail;
    const what = ceiling ? 'undecided' : 'fails';
    const note = minNote ? ` (${minNote})` : '';
    let load: number;
    if (fail === null) {
      if ((pass as number) >= max) return { end: 'passes at the maximum load' };
      load = Math.min(max, this.#round((pass as number) * growth, pass as number, Number.POSITIVE_INFINITY));
    } else if (pass === null) {
      if (fail <= min) return { end: `${what} at the minimum load${note}` };
      load = Math.max(min, this.#round(fail / growth, 0, fail));
    } else {
      const undecided = ceiling ? ` (undecided at ${fail})` : '';
      if (fail / pass - 1 <= resolution) return { end: `resolved to ${formatPercent(resolution)}${undecided}` };
      if (integer && fail - pass <= 1)
        return { end: `resolved to whole numbers (${pass} passes, ${fail} ${ceiling ? 'undecided' : 'fails'})` };
      const middle = integer ? Math.floor((pass + fail) / 2) : Math.sqrt(pass * fail);
      load = this.#round(middle, pass, fail);
    }
    if (this.#history.length >= maxSteps) return { end: 'max steps' };
    return { load };
  }

  /**
   * Whole numbers >= 1 for concurrency, otherwise 3 significant digits; kept strictly between `above` and
   * `below` (exclusive) when given, so rounding never repeats a load already run.
   */
  #round(value: number, above = Number.NEGATIVE_INFINITY, below = Number.POSITIVE_INFINITY): number {
    if (this.#options.integer) {
      const whole = Math.max(1, Math.round(value));
      if (whole <= above) return above + 1;
      if (whole >= below) return below - 1;
      return whole;
    }
    const rounded = Number(value.toPrecision(3));
    return rounded > above && rounded < below ? rounded : value;
  }
}

function validate(options: SearchOptions): Required<SearchOptions> {
  const { growth = SEARCH_GROWTH, minNote = '' } = options;
  const { start, min, max, resolution, maxSteps } = options;
  const problems: string[] = [];
  if (!(min > 0)) problems.push(`min must be > 0, got ${min}`);
  if (!(max >= min)) problems.push(`max (${max}) must be >= min (${min})`);
  if (!(start > 0 && Number.isFinite(start))) problems.push(`start must be a positive number, got ${start}`);
  if (!(resolution > 0)) problems.push(`resolution must be > 0, got ${resolution}`);
  if (!(Number.isInteger(maxSteps) && maxSteps >= 1))
    problems.push(`max steps must be a whole number >= 1, got ${maxSteps}`);
  if (!(growth > 1)) problems.push(`growth must be > 1, got ${growth}`);
  if (problems.length > 0) throw new InferbenchError('BAD_PROFILE', `capacity search: ${problems.join('; ')}`);
  const integer = options.integer;
  // Concurrency is whole: the bounds become the whole numbers inside them.
  const bounds = integer ? { min: Math.max(1, Math.ceil(min)), max: Math.max(1, Math.floor(max)) } : { min, max };
  return { start, integer, resolution, maxSteps, growth, minNote, ...bounds };
}

function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(6))}%`;
}
