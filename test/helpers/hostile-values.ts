/**
 * Generated bad input for the fuzz tests (fast-check): values of every wrong kind a user or a broken
 * tool could put in a profile, a `--set` or a flag (huge and tiny numbers, NaN-like and duration-like
 * strings, deep nesting, wrong types), and the paths of every key of a YAML document, so a test can put
 * one of those values at any key of a valid profile.
 *
 *     fc.assert(fc.property(fc.constantFrom(...keyPaths(doc)), hostileValue(), (path, value) => ...),
 *       { seed: FUZZ_SEED, numRuns: 300 });
 */
import fc from 'fast-check';

/**
 * One fixed seed for every fuzz test, so a failure replays exactly (fast-check prints it, and the path).
 * INFERBENCH_FUZZ_SEED=<n> explores other cases locally; CI keeps the fixed one.
 */
export const FUZZ_SEED = Number(process.env.INFERBENCH_FUZZ_SEED ?? 20261124);

/** A key path into a document: object keys and array indexes. */
export type KeyPath = readonly (string | number)[];

/** Numbers and number-like strings that break naive parsing, rounding or allocation. */
export function awkwardNumber(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53 + 1, 1e-320, 0.1, 1e21, 2 ** 31, -(2 ** 31) - 1),
    fc.constantFrom('NaN', '.nan', '-.inf', '.inf', 'Infinity', '-Infinity', '1e309', '-1e309', '0x1F', '1_000'),
    fc.constantFrom('5', '-5s', '0s', '1e9h', '99999999999999999999s', '1.5.5s', 's', '10 ms', '∞'),
    fc.double(),
    fc.integer(),
  );
}

/** Nested arrays and objects `depth` levels deep (deep nesting the schema walkers must survive). */
export function deepNesting(): fc.Arbitrary<unknown> {
  return fc.tuple(fc.integer({ min: 20, max: 400 }), fc.boolean()).map(([depth, asArray]) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
    return value;
  });
}

/** Any value of any wrong kind: JSON values, awkward numbers, deep nesting, odd strings, null. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
    { arbitrary: awkwardNumber(), weight: 4 },
    { arbitrary: deepNesting(), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
    {
      arbitrary: fc.constantFrom(null, true, false, '', ' ', '~', '[]', '{}', '---', '*a', '&a', '!!binary x'),
      weight: 2,
    },
    { arbitrary: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 4 }), weight: 1 },
  );
}

/** The paths of every key and array element of a parsed document, the root excluded. */
export function keyPaths(document: unknown, prefix: KeyPath = []): KeyPath[] {
  const paths: KeyPath[] = [];
  if (Array.isArray(document)) {
    document.forEach((item, index) => {
      paths.push([...prefix, index], ...keyPaths(item, [...prefix, index]));
    });
  } else if (typeof document === 'object' && document !== null) {
    for (const [key, value] of Object.entries(document))
      paths.push([...prefix, key], ...keyPaths(value, [...prefix, key]));
  }
  return paths;
}

/** A deep copy of `document` with the value at `path` replaced by `value`. */
export function withValueAt(document: unknown, path: KeyPath, value: unknown): unknown {
  const copy = structuredClone(document) as Record<string | number, unknown>;
  let node = copy;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

/** `a.b[2].c`: a path as `--set` and error messages write it. */
export function formatKeyPath(path: KeyPath): string {
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`))
    .join('');
}

/** Lines of a Node stack trace ("    at fn (file:1:2)", "    at file:1:2"): stderr must never show one. */
export const STACK_LINE = /^[ \t]+at .+:\d+:\d+\)?$/m;
