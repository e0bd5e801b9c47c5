/**
 * The `x-emulator-fault` request header: `kind` or `kind;after=N;ms=M` (parameters in any order,
 * case-insensitive, spaces allowed), e.g. `stream_error;after=5` or `stall_between_tokens;after=3;ms=2000`.
 * A value the emulator does not understand is a 400 naming the header, never silently ignored: a test
 * that asks for a fault must get it.
 */
import { HEADER } from '../../protocol/headers.js';
import { badRequest } from '../api-error.js';
import type { FaultKind, FaultPlan } from '../hooks.js';

export const FAULT_KINDS: readonly FaultKind[] = [
  'none',
  'http_500',
  'http_503',
  'stream_error',
  'reset',
  'stall_before_headers',
  'stall_between_tokens',
  'slow_headers',
  'invalid_answer',
];

export interface FaultDefaults {
  readonly afterTokens: number;
  readonly stallMs: number;
}

function isFaultKind(value: string): value is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(value);
}

/** Parses the header into a plan, filling what it leaves out from `defaults`. Throws a 400 ApiError. */
export function parseFaultHeader(value: string, defaults: FaultDefaults): FaultPlan {
  const [rawKind = '', ...params] = value.split(';').map((part) => part.trim());
  const kind = rawKind.toLowerCase().replaceAll('-', '_');
  if (!isFaultKind(kind)) {
    throw badRequest(
      `Unknown ${HEADER.emulatorFault} value ${JSON.stringify(rawKind.slice(0, 100))}; use one of ${FAULT_KINDS.join(', ')}, optionally followed by ;after=N;ms=M.`,
      HEADER.emulatorFault,
    );
  }
  let afterTokens = defaults.afterTokens;
  let stallMs = defaults.stallMs;
  for (const param of params) {
    if (param === '') continue;
    const match = /^(after|ms)\s*=\s*(\d{1,9})$/i.exec(param);
    if (!match) {
      throw badRequest(
        `Bad ${HEADER.emulatorFault} parameter ${JSON.stringify(param.slice(0, 100))}; expected after=N (tokens) or ms=M (milliseconds).`,
        HEADER.emulatorFault,
      );
    }
    const number = Number(match[2]);
    if ((match[1] as string).toLowerCase() === 'after') afterTokens = number;
    else stallMs = number;
  }
  return { kind, afterTokens, stallMs };
}
