/**
 * The `live:` block (profile/sections/live.ts): resolved with its defaults, absent when unset, strict about
 * its keys and values, and `--set live.metrics_port=...` works like any other override.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const SCENARIOS = 'scenarios:\n  - name: s\n    duration: 5s\n';

describe('live', () => {
  it('resolves port, host and linger (default 15 s); absent when the profile has no live block', () => {
    expect(resolveProfileText(SCENARIOS, 'p.yaml', [], '/tmp').live).toBeUndefined();
    const live = (text: string, overrides: string[] = []) =>
      resolveProfileText(`${SCENARIOS}${text}`, 'p.yaml', overrides, '/tmp').live;
    expect(live('live: { metrics_port: 9464 }\n')).toEqual({
      metricsPort: 9464,
      metricsHost: null,
      metricsLingerMs: 15_000,
    });
    expect(live('live: { metrics_port: 0, metrics_host: 0.0.0.0, metrics_linger: 2s }\n')).toEqual({
      metricsPort: 0,
      metricsHost: '0.0.0.0',
      metricsLingerMs: 2_000,
    });
    expect(live('live: { metrics_linger: 0 }\n')?.metricsLingerMs).toBe(0);
    expect(live('', ['live.metrics_port=9500'])?.metricsPort).toBe(9500);
  });

  it('refuses unknown keys, ports out of range and bad durations, naming the line and field', () => {
    const lines = profileProblems(
      `${SCENARIOS}live: { metrics_port: 70000, metrics_linger: soon, metric_port: 1 }\n`,
      '/tmp',
    ).join('\n');
    expect(lines).toMatch(/:4:.*live\.metrics_port/);
    expect(lines).toMatch(/live\.metrics_linger: expected a duration/);
    expect(lines).toMatch(/metric_port/);
    expect(profileProblems(`${SCENARIOS}live: { metrics_host: "" }\n`, '/tmp').join('\n')).toMatch(
      /live\.metrics_host/,
    );
  });
});
