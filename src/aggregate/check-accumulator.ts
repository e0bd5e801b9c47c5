/**
 * A group's answer checks (record.checks, set by the runner once a request is finished): passed and failed
 * per check name, and the first few distinct failure messages. Fed by the collector for measured requests;
 * keeps nothing of the record.
 */
import type { RequestRecord } from '../client/request-record.js';
import { ANSWER_CHECK_NAMES, CHECK_SAMPLES, type GroupChecks, passRate } from '../metrics/check-summary.js';

interface CheckCounts {
  passed: number;
  failed: number;
  readonly samples: string[];
}

export class CheckAccumulator {
  readonly #counts = new Map<string, CheckCounts>();

  /** Counts the checks of one finished request (none: nothing to count). */
  add(record: RequestRecord): void {
    const checks = record.checks;
    if (checks === null) return;
    for (let i = 0; i < checks.length; i += 1) {
      const check = checks[i];
      if (check === undefined) continue;
      let counts = this.#counts.get(check.name);
      if (counts === undefined) {
        counts = { passed: 0, failed: 0, samples: [] };
        this.#counts.set(check.name, counts);
      }
      if (check.passed) {
        counts.passed += 1;
        continue;
      }
      counts.failed += 1;
      const message = check.message;
      if (message !== null && counts.samples.length < CHECK_SAMPLES && !counts.samples.includes(message)) {
        counts.samples.push(message);
      }
    }
  }

  /** summary.json `checks`, in ANSWER_CHECK_NAMES order; undefined when no request was checked. */
  summary(): GroupChecks | undefined {
    if (this.#counts.size === 0) return undefined;
    const out: GroupChecks = {};
    for (const name of ANSWER_CHECK_NAMES) {
      const counts = this.#counts.get(name);
      if (counts === undefined) continue;
      out[name] = {
        passed: counts.passed,
        failed: counts.failed,
        pass_rate: passRate(counts.passed, counts.failed),
        samples: [...counts.samples],
      };
    }
    return out;
  }
}
