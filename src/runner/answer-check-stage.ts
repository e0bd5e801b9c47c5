/**
 * The runner's part of the answer checks: at launch it notes what each request's answer is checked
 * against (a cached lookup by the body's `tools` and `response_format` objects: measure/answer-validators.ts),
 * and when the record is finished, off the hot path, it sets `record.checks` (measure/answer-checks.ts)
 * before the collector and requests.csv read it. Schemas are compiled when the workloads are built
 * (prepare), so a schema that does not compile stops the run before it starts, and no request pays for it.
 */
import type { RequestRecord } from '../client/request-record.js';
import { answerChecks } from '../measure/answer-checks.js';
import { type AnswerExpectation, AnswerValidators } from '../measure/answer-validators.js';

export class AnswerCheckStage {
  readonly #validators = new AnswerValidators();
  /** Records in flight whose answer is checked (only those: others cost one lookup that finds nothing). */
  readonly #pending = new WeakMap<RequestRecord, AnswerExpectation>();

  /** Schemas compiled so far. */
  get compilations(): number {
    return this.#validators.compilations;
  }

  /** Compiles the schemas of a body built at set-up; throws BAD_PROFILE naming `scenario` for one that does not compile. */
  prepare(body: Readonly<Record<string, unknown>>, scenario: string): void {
    this.#validators.expectation(body, `scenario ${scenario}`);
  }

  /** At launch: remembers what `record`'s answer is checked against. */
  expect(record: RequestRecord, body: Readonly<Record<string, unknown>>, scenario: string): void {
    let expectation: AnswerExpectation | null;
    try {
      expectation = this.#validators.expectation(body, `scenario ${scenario}`);
    } catch {
      // A schema first seen mid-run that does not compile: that request is not checked (prepare reports it).
      return;
    }
    if (expectation === null) return;
    this.#pending.set(record, expectation);
    // Only the json_schema check reads the content: a tools-only request keeps none (request-record.ts).
    if (expectation.format !== null) record.keepContent = true;
  }

  /** Once finished: sets `record.checks` (null when none apply). */
  check(record: RequestRecord): void {
    const expectation = this.#pending.get(record);
    if (expectation === undefined) return;
    this.#pending.delete(record);
    record.checks = answerChecks(record, expectation);
  }
}
