/**
 * `capacity.slo` with a server objective (`kv_cache_usage.max: 95%`): the profile keeps it as written,
 * `validate` shows it as an upper bound, a statistic no window has is refused at the profile, and the
 * search's objectives read it in the concept's unit (aggregate/capacity/server-objective.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseCapacitySlo, parseServerSlo } from '../../../src/aggregate/capacity/capacity-slo.js';
import { formatCapacityPlan } from '../../../src/profile/sections/capacity.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const scenario = 'scenarios:\n  - name: s\n    load: { mode: rate, rate: 5 }\n    duration: 5s\n';

describe('capacity.slo with a server concept', () => {
  it('is kept as written and read as a bound in the concept unit beside the request objectives', () => {
    const profile = resolveProfileText(
      `${scenario}capacity: { slo: { ttft_ms.p99: 500ms, kv_cache_usage.max: 95%, waiting.mean: 8 } }\n`,
      'p.yaml',
    );
    expect(profile.capacity.slo).toEqual({ 'ttft_ms.p99': '500ms', 'kv_cache_usage.max': '95%', 'waiting.mean': 8 });
    expect(parseCapacitySlo(profile.capacity.slo).map((o) => o.key)).toEqual(['ttft_ms.p99']);
    expect(parseServerSlo(profile.capacity.slo).map((o) => [o.key, o.limit])).toEqual([
      ['kv_cache_usage.max', 0.95],
      ['waiting.mean', 8],
    ]);
    expect(formatCapacityPlan(profile)).toContain(
      'slo ttft_ms.p99 < 500ms, kv_cache_usage.max <= 95%, waiting.mean <= 8;',
    );
  });

  it("takes a gauge's p99 and a counter's max_per_s and p99_per_s; refuses a statistic of another kind", () => {
    const profile = resolveProfileText(
      `${scenario}capacity: { slo: { ttft_ms.p99: 500ms, waiting.p99: 8, preemptions.max_per_s: 0, generation_tokens_per_s.p99_per_s: 900 } }\n`,
      'p.yaml',
    );
    expect(parseServerSlo(profile.capacity.slo).map((o) => [o.key, o.limit])).toEqual([
      ['waiting.p99', 8],
      ['preemptions.max_per_s', 0],
      ['generation_tokens_per_s.p99_per_s', 900],
    ]);
    expect(formatCapacityPlan(profile)).toContain('preemptions.max_per_s <= 0');
    expect(profileProblems(`${scenario}capacity: { slo: { ttft_ms.p99: 500ms, waiting.per_s: 1 } }\n`)).toEqual([
      expect.stringMatching(/waiting\.per_s.*one of max, mean, last, p99 of waiting \(a gauge\)/),
    ]);
  });

  it('refuses a statistic no server window has, naming the key', () => {
    expect(profileProblems(`${scenario}capacity: { slo: { ttft_ms.p99: 500ms, kv_cache_usage.p42: 1 } }\n`)).toEqual([
      expect.stringMatching(
        /capacity\.slo\["kv_cache_usage\.p42"\]: bad key: .*a server concept like kv_cache_usage\.max/,
      ),
    ]);
  });
});
