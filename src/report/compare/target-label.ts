/**
 * How compare shows the target a run was sent to: its base URL with any user:password and secret-looking
 * query values removed (summary.json is written without them, but an older or hand-made file may carry
 * them, and compare's outputs land in CI logs), and "(embedded emulator)" when inferbench started it.
 */
import type { RunSummary } from '../../metrics/run-summary.js';

/** A run's target, as compare reports it (camelCase like the rest of `compare --json`). */
export interface TargetRef {
  /** The base URL without credentials. */
  readonly baseUrl: string;
  readonly embeddedEmulator: boolean;
}

const SECRET_PARAM = /key|token|secret|password|auth|signature|sig$/i;

/** The target of a run's summary, credentials stripped. */
export function targetOf(summary: RunSummary): TargetRef {
  return {
    baseUrl: withoutCredentials(summary.target.base_url),
    embeddedEmulator: summary.target.embedded_emulator === true,
  };
}

/** `http://127.0.0.1:40559 (embedded emulator)` or the base URL alone. */
export function targetLabel(target: TargetRef): string {
  return target.embeddedEmulator ? `${target.baseUrl} (embedded emulator)` : target.baseUrl;
}

/**
 * Whether two runs went to the same target. Every embedded emulator listens on a new port, and is the same
 * service each time: two embedded runs have the same target.
 */
export function sameTarget(a: TargetRef, b: TargetRef): boolean {
  if (a.embeddedEmulator || b.embeddedEmulator) return a.embeddedEmulator === b.embeddedEmulator;
  return a.baseUrl === b.baseUrl;
}

/** The URL without user:password and with secret-looking query values redacted; text that is no URL is kept. */
export function withoutCredentials(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Not a URL: drop anything that looks like user:password@ all the same.
    return baseUrl.replace(/\/\/[^/@\s]*@/, '//');
  }
  const hadCredentials = url.username !== '' || url.password !== '';
  url.username = '';
  url.password = '';
  let redacted = false;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, 'REDACTED');
      redacted = true;
    }
  }
  if (!hadCredentials && !redacted) return baseUrl;
  const text = url.toString();
  return url.pathname === '/' && !url.search && !baseUrl.endsWith('/') ? text.replace(/\/$/, '') : text;
}
