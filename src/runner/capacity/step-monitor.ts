/**
 * Watches one capacity step while it runs and decides it as early as the evidence allows. Finished
 * requests go into blocks of time by when they ended; each block, once closed, feeds one sequential test
 * per objective (aggregate/capacity/exceedance-sprt.ts). The step FAILS as soon as any test fails or a
 * saturation signal shows (arrivals dropped, an error burst, or in an open loop the achieved rate falling
 * behind the offered one while requests pile up in flight); it PASSES when every test has passed; it is
 * undecided otherwise, until the step's time is up. The first block is ramp-up (connections opening, the
 * first arrivals) and is read by no test, nor are the blocks of the step's warmup (rampBlocks).
 */
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import { ExceedanceSprt } from '../../aggregate/capacity/exceedance-sprt.js';
import type { ProgressSnapshot } from '../../aggregate/types.js';
import type { RequestRecord } from '../../client/request-record.js';
import type { RecordedValues } from '../../metrics/request-values.js';
import { StepBlock } from './step-block.js';

/** One objective's sequential test at the end of a step. */
export interface StepTest {
  readonly key: string;
  readonly requests: number;
  readonly exceeded: number;
  readonly decision: 'pass' | 'fail' | 'undecided';
  readonly description: string;
}

export interface StepMonitorOptions {
  readonly objectives: readonly CapacityObjective[];
  readonly blockMs: number;
  readonly alpha: number;
  readonly beta: number;
  readonly indifference: number;
  /** Offered load: arrivals per second in an open loop, streams in a closed one. */
  readonly load: number;
  readonly mode: 'rate' | 'concurrency';
  /**
   * Per objective key, a floor under each test's design effect: the one pooled over the search's earlier
   * decided steps (aggregate/capacity/design-effect.ts pooledDesignEffect). A step heading for PASS sees
   * too few exceedances to show how they cluster; the steps before it can. Default 1.
   */
  readonly designEffectFloors?: Readonly<Record<string, number>>;
  /**
   * Blocks at the start of the step read by no test (default 1: the ramp-up), plus the step's warmup
   * (`capacity.step_warmup` or its default, run-step.ts): a step starts with an empty queue, and at a load
   * just over what the server sustains the backlog takes seconds to build; tests that read only what ends
   * after it see the load as it is held, not the transient.
   */
  readonly rampBlocks?: number;
}

/**
 * A decided step. `signal`: decided by the SLO tests, or by a sign of overload that no SLO can undo
 * (dropped arrivals, falling behind, an error burst): a re-evaluation under another SLO keeps the latter.
 */
export type StepDecision = {
  readonly outcome: 'pass' | 'fail';
  readonly reason: string;
  readonly signal: 'tests' | 'overload';
};

/** Records arriving this long after their block ended still count in it (the finisher works in slices). */
const LATE_RECORD_MS = 250;
/** Blocks that must be seen before a saturation signal is believed. */
const SATURATION_BLOCKS = 3;
/** An open loop achieving less than this share of its offered rate is falling behind. */
const ACHIEVED_SHARE = 0.8;
/** A block whose requests failed at least this often, with at least 5 requests, is an error burst. */
const ERROR_BURST_SHARE = 0.5;

export class StepMonitor {
  readonly #options: StepMonitorOptions;
  readonly #blocks: StepBlock[] = [];
  readonly #tests: Map<string, ExceedanceSprt>;
  #startUs = Number.NaN;
  #closed = 0;
  #decision: StepDecision | null = null;
  /** Requests in flight when each block closed. */
  readonly #inFlight: number[] = [];

  constructor(options: StepMonitorOptions) {
    this.#options = options;
    this.#tests = new Map(
      options.objectives.map((objective) => [
        objective.key,
        new ExceedanceSprt({
          allowed: objective.allowed,
          indifference: options.indifference,
          alpha: options.alpha,
          beta: options.beta,
          minDesignEffect: options.designEffectFloors?.[objective.key] ?? 1,
        }),
      ]),
    );
  }

  /** The measured part of the step began (µs on the records' clock). */
  start(atUs: number): void {
    this.#startUs = atUs;
  }

  record(record: RequestRecord, values: RecordedValues): void {
    if (record.warmup || Number.isNaN(this.#startUs)) return;
    const endUs = Number.isNaN(record.endUs) ? record.launchUs : record.endUs;
    const index = Math.max(0, Math.floor((endUs - this.#startUs) / (this.#options.blockMs * 1000)));
    // A record of a block already closed (very late) counts in the next open one.
    const block = this.#block(Math.max(index, this.#closed));
    block.add(record, values);
  }

  /** Called about once a block: closes the blocks that are over and returns the decision once there is one. */
  tick(nowUs: number, progress: ProgressSnapshot): StepDecision | null {
    if (this.#decision !== null || Number.isNaN(this.#startUs)) return this.#decision;
    const blockUs = this.#options.blockMs * 1000;
    const over = Math.floor((nowUs - this.#startUs - LATE_RECORD_MS * 1000) / blockUs);
    const closing = this.#closed < over;
    while (this.#closed < over && this.#decision === null) this.#decision = this.#close(this.#block(this.#closed++));
    // In flight as each block closes (a tick closes at most one block at a time in steady running).
    if (closing) this.#inFlight.push(progress.inFlight);
    this.#decision ??= this.#saturation(progress);
    return this.#decision;
  }

  /**
   * Offline (`capacity --reevaluate`): the next stored block, closed at once, read exactly as online.
   * Returns the decision once there is one; blocks after it are not read (online they were never sent).
   */
  replay(block: StepBlock): StepDecision | null {
    if (this.#decision !== null) return this.#decision;
    this.#blocks[this.#closed++] = block;
    this.#decision = this.#close(block);
    return this.#decision;
  }

  /** Blocks at the start read by no test. */
  get rampBlocks(): number {
    return this.#options.rampBlocks ?? 1;
  }

  get decision(): StepDecision | null {
    return this.#decision;
  }

  /** Blocks closed so far (block 0, the ramp-up, included). */
  get blocks(): readonly StepBlock[] {
    return this.#blocks.slice(0, this.#closed);
  }

  /** Per objective: its test's counts, decision and one-line description. */
  tests(): { key: string; test: ExceedanceSprt }[] {
    return [...this.#tests].map(([key, test]) => ({ key, test }));
  }

  /** The tests as a step's result records them (the same online and replayed by --reevaluate). */
  testResults(): StepTest[] {
    return this.tests().map(({ key, test }) => ({
      key,
      requests: test.requests,
      exceeded: test.exceeded,
      decision: test.decision,
      description: test.describe(key),
    }));
  }

  #block(index: number): StepBlock {
    while (this.#blocks.length <= index) this.#blocks.push(new StepBlock());
    return this.#blocks[index] as StepBlock;
  }

  #close(block: StepBlock): StepDecision | null {
    const index = this.#closed - 1;
    if (block.requests >= 5 && block.failed / block.requests >= ERROR_BURST_SHARE) {
      return {
        outcome: 'fail',
        reason: `error burst: ${block.failed} of ${block.requests} requests failed in block ${index}`,
        signal: 'overload',
      };
    }
    if (index < (this.#options.rampBlocks ?? 1)) return null;
    let allPass = true;
    for (const objective of this.#options.objectives) {
      const test = this.#tests.get(objective.key) as ExceedanceSprt;
      const { exceeded, total } = block.exceedance(objective);
      test.addBlock(exceeded, total);
      if (test.decision === 'fail') return { outcome: 'fail', reason: test.describe(objective.key), signal: 'tests' };
      if (test.decision !== 'pass') allPass = false;
    }
    if (!allPass) return null;
    return {
      outcome: 'pass',
      reason: this.tests()
        .map(({ key, test }) => test.describe(key))
        .join('; '),
      signal: 'tests',
    };
  }

  /**
   * Overload that no test needs to wait for. Dropped arrivals at once; in an open loop, falling behind:
   * over the last few closed blocks after the ramp-up, fewer requests ended than ACHIEVED_SHARE of the
   * offered rate AND the requests in flight grew at every block and by a margin chance does not give
   * (at least 3, and a tenth of what the window offered), i.e. a backlog is building, not a quiet spell.
   */
  #saturation(progress: ProgressSnapshot): StepDecision | null {
    if (progress.dropped > 0)
      return {
        outcome: 'fail',
        reason: `saturated: ${progress.dropped} arrivals dropped at max_concurrency`,
        signal: 'overload',
      };
    const window = SATURATION_BLOCKS;
    if (this.#options.mode !== 'rate' || this.#closed < window + 1) return null;
    const windowS = (window * this.#options.blockMs) / 1000;
    const ended = this.#blocks
      .slice(this.#closed - window, this.#closed)
      .reduce((sum, block) => sum + block.requests, 0);
    const achieved = ended / windowS;
    const offered = this.#options.load;
    const recent = this.#inFlight.slice(-(window + 1));
    const growing =
      recent.length === window + 1 && recent.every((value, i) => i === 0 || value > (recent[i - 1] as number));
    const growth = (recent.at(-1) ?? 0) - (recent[0] ?? 0);
    if (growing && growth >= Math.max(3, 0.1 * offered * windowS) && achieved < ACHIEVED_SHARE * offered) {
      return {
        outcome: 'fail',
        reason: `saturated: ${achieved.toFixed(1)} req/s ended of ${offered.toFixed(1)} offered over ${windowS} s, in flight growing ${recent.join(' -> ')}`,
        signal: 'overload',
      };
    }
    return null;
  }
}
