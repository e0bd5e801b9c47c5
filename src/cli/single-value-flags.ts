/**
 * Refuses a flag that takes one value given more than once (`--config a --config b`): yargs turns it into
 * an array that the command would not expect. Flags declared `array: true` (`--api-key`, `--pair`) repeat,
 * and so do the ones declared as strings so that they do not swallow the positionals after them.
 */
import { InferbenchError } from '../errors.js';

/** Repeatable flags declared `type: 'string'` without `array: true` (`run --set a=1 --set b=2 profile.yaml`, `--server-metrics A --server-metrics B`). */
const REPEATABLE_STRING_FLAGS = ['set', 'slo', 'server-metrics'];

/** Throws BAD_USAGE when a flag not in `arrayFlags` holds several values. */
export function rejectRepeatedFlags(args: Readonly<Record<string, unknown>>, arrayFlags: readonly string[]): void {
  const repeatable = new Set([...arrayFlags, ...REPEATABLE_STRING_FLAGS]);
  for (const [flag, value] of Object.entries(args)) {
    // yargs mirrors each kebab-case flag under a camelCase key: check the flag as written only once.
    if (flag === '_' || flag === '$0' || /[A-Z]/.test(flag) || !Array.isArray(value) || repeatable.has(flag)) continue;
    throw new InferbenchError('BAD_USAGE', `--${flag} takes one value, but was given ${value.length} times`, {
      hint: `keep one --${flag}`,
    });
  }
}
