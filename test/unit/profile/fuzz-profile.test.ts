/**
 * Generated bad profiles (fast-check, fixed seed): random YAML text, a hostile value at every key of each
 * shipped profile, and random `--set` arguments. Loading must either succeed or throw one
 * InferbenchError('BAD_PROFILE') whose message names the file (with line and column) or the `--set`;
 * never a TypeError, a RangeError or a stack trace. In-process, hundreds of cases per property.
 * @module-tag slow
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { isInferbenchError } from '../../../src/errors.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import {
  FUZZ_SEED,
  formatKeyPath,
  hostileValue,
  keyPaths,
  STACK_LINE,
  withValueAt,
} from '../../helpers/hostile-values.js';

const PROFILES = resolve(import.meta.dirname, '../../../profiles');
// emulator-*.yaml are emulator configs (`serve --config`), not profiles.
const SHIPPED = readdirSync(PROFILES)
  .filter((file) => file.endsWith('.yaml') && !file.startsWith('emulator-'))
  .map((file) => ({ file, data: parseYaml(readFileSync(join(PROFILES, file), 'utf8')) as unknown }));

/** Every (profile, key path) pair of the shipped profiles. */
const SHIPPED_KEYS = SHIPPED.flatMap(({ file, data }) => keyPaths(data).map((path) => ({ file, data, path })));

/**
 * A shipped profile, then one of its keys: each profile as likely as another (the two with tool schemas
 * have the most keys and are the slowest to load, ~100 ms, so picking among all keys would favour them).
 */
const shippedKey = fc
  .constantFrom(...SHIPPED)
  .chain(({ file, data }) => fc.constantFrom(...keyPaths(data)).map((path) => ({ file, data, path })));

type Outcome = 'valid' | 'rejected';

/**
 * Loads profile text and checks the outcome is clean: valid, or BAD_PROFILE naming `sourceName` at a
 * line and column (or the `--set` that caused it). Anything else fails the property with the error.
 */
function loadCleanly(text: string, sourceName: string, overrides: readonly string[] = []): Outcome {
  try {
    resolveProfileText(text, sourceName, overrides, PROFILES);
    return 'valid';
  } catch (error) {
    if (!isInferbenchError(error) || error.code !== 'BAD_PROFILE') throw error;
    const problems = error.message.split('\n').slice(1);
    expect(problems.length).toBeGreaterThan(0);
    for (const line of problems) expect(line).toMatch(placedProblem(sourceName));
    expect(error.message).not.toMatch(STACK_LINE);
    return 'rejected';
  }
}

/** "  file.yaml:12:5: path: message", "  --set a=b: ...", or a problem inside a file the profile names. */
function placedProblem(sourceName: string): RegExp {
  const name = sourceName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // dotAll: a YAML message quotes the offending token, which may be a line separator.
  return new RegExp(`^  (${name}:\\d+:\\d+: .+|--set .+|\\S+:\\d+(:\\d+)?: .+|.+\\.(jsonl?|csv|yaml): .+)$`, 's');
}

/** Counts how often each outcome happened, so a test can prove it exercised both. */
function tally(): { counts: Record<Outcome, number>; add(outcome: Outcome): void } {
  const counts: Record<Outcome, number> = { valid: 0, rejected: 0 };
  return { counts, add: (outcome) => void counts[outcome]++ };
}

describe('fuzz: a hostile value at any key of a shipped profile', () => {
  it(`is loaded or rejected with file:line:col, never a crash (${SHIPPED_KEYS.length} keys)`, () => {
    const seen = tally();
    fc.assert(
      fc.property(shippedKey, hostileValue(), ({ file, data, path }, value) => {
        const text = stringifyYaml(withValueAt(data, path, value));
        seen.add(loadCleanly(text, file));
      }),
      { seed: FUZZ_SEED, numRuns: 600 },
    );
    // Most hostile values are wrong for their key; some (a number where any number fits) are not.
    expect(seen.counts.rejected).toBeGreaterThan(300);
    expect(seen.counts.valid).toBeGreaterThan(0);
  });

  it('names the exact line of the replaced value', () => {
    // A string where the schema wants a number is always wrong: the message must point at its line.
    const quickstart = SHIPPED.find(({ file }) => file === 'quickstart.yaml')!;
    const text = stringifyYaml(withValueAt(quickstart.data, ['scenarios', 0, 'load', 'concurrency'], 'NaN'));
    const line = text.split('\n').findIndex((l) => l.includes('concurrency: NaN')) + 1;
    expect(line).toBeGreaterThan(0);
    expect(() => resolveProfileText(text, 'quickstart.yaml', [], PROFILES)).toThrow(
      new RegExp(`quickstart\\.yaml:${line}:\\d+: scenarios\\[0\\]\\.load\\.concurrency: `),
    );
  });
});

/** YAML-ish tokens, so random text reaches the parser's corners (anchors, tags, flow, block scalars). */
const YAML_TOKEN = fc.constantFrom(
  ...['-', ': ', ' ', '  ', '\n', '\t', '[', ']', '{', '}', ',', '&a ', '*a', '!!str ', '!!int ', '!x ', '#', '"'],
  ...["'", '|', '>', '? ', '<<: ', '---', '...', '%YAML 1.2', 'name', 'scenarios', 'load', 'mode', '1e999', '\u0000'],
  ...['\uFEFF', '\\', 'duration: ', '5s', 'null', '~', 'requests: ', '\r\n', '\u2028', 'é'],
);

describe('fuzz: random YAML documents', () => {
  it('random token soup is rejected as YAML or as a profile, never a crash', () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.array(YAML_TOKEN, { maxLength: 60 }), (tokens) => {
        seen.add(loadCleanly(tokens.join(''), 'soup.yaml'));
      }),
      { seed: FUZZ_SEED, numRuns: 500 },
    );
    expect(seen.counts.rejected).toBeGreaterThan(400);
  });

  it('random YAML data of any shape is rejected with a line, never a crash', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), hostileValue())), (data) => {
        expect(loadCleanly(stringifyYaml(data), 'data.yaml')).toBe('rejected');
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
  });

  it('random bytes (binary, control characters, invalid UTF-8) are rejected, never a crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(loadCleanly(Buffer.from(bytes).toString('utf8'), 'bytes.yaml')).toBe('rejected');
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
  });

  it('an alias bomb (billion laughs) is rejected as BAD_PROFILE, not expanded', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(9)
          .fill(i === 1 ? '*a' : `*${'b'.repeat(i - 1)}`)
          .join(', ')}]`,
      );
    const started = performance.now();
    expect(loadCleanly(levels.join('\n'), 'bomb.yaml')).toBe('rejected');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('deep nesting (10,000 levels of flow brackets) is rejected, never a stack overflow', () => {
    const depth = 10_000;
    expect(loadCleanly(`scenarios: ${'['.repeat(depth)}${']'.repeat(depth)}`, 'deep.yaml')).toBe('rejected');
  });
});

describe('fuzz: --set arguments', () => {
  const quickstart = readFileSync(join(PROFILES, 'quickstart.yaml'), 'utf8');
  const paths = SHIPPED_KEYS.filter(({ file }) => file === 'quickstart.yaml').map(({ path }) => formatKeyPath(path));
  const valueText = fc.oneof(
    hostileValue().map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'))),
    fc.array(YAML_TOKEN, { maxLength: 12 }).map((tokens) => tokens.join('')),
  );
  const pathText = fc.oneof(
    { arbitrary: fc.constantFrom(...paths, 'slo.ttft_ms.p99', 'scenarios[99].load', 'target.headers.X'), weight: 4 },
    { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
    {
      arbitrary: fc.constantFrom('', '.', '[', '[-1]', '[1e9]', 'a..b', '["x', '__proto__', 'constructor.prototype'),
      weight: 1,
    },
  );

  it('any path=value is applied and loaded, or rejected naming the --set or the file line', () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.array(fc.tuple(pathText, valueText), { minLength: 1, maxLength: 3 }), (sets) => {
        // A shell argument can hold a line break, but the message quoting it then spans lines: keep to one.
        const overrides = sets.map(([path, value]) => `${path}=${value}`.replace(/[\r\n]/g, ' '));
        seen.add(loadCleanly(quickstart, 'quickstart.yaml', overrides));
      }),
      { seed: FUZZ_SEED, numRuns: 500 },
    );
    expect(seen.counts.rejected).toBeGreaterThan(250);
    expect(seen.counts.valid).toBeGreaterThan(0);
  });

  it('a --set without "=" or with an unreadable path is rejected naming that --set', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((text) => !text.includes('=')),
        (text) => {
          expect(() => resolveProfileText(quickstart, 'quickstart.yaml', [text], PROFILES)).toThrow(`--set ${text}`);
        },
      ),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
  });

  it('a --set on __proto__ does not pollute Object.prototype', () => {
    expect(loadCleanly(quickstart, 'quickstart.yaml', ['__proto__.polluted=yes', 'constructor.prototype.x=1'])).toBe(
      'rejected',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
