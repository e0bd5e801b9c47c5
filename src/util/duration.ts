/**
 * Human durations ("250ms", "30s", "2m", "1h", "1m30s", or a bare number of seconds) to milliseconds.
 * Profiles and flags use these; everything inside works in milliseconds.
 */
const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(us|ms|s|m|h)/gy;

/** Returns milliseconds, or undefined when the text is not a duration. */
export function parseDurationMs(input: string | number): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input * 1000 : undefined;
  const text = input.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (text.length === 0) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(text); match !== null; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  return consumed === text.length ? total : undefined;
}

/** Milliseconds to a short human string for terminal output ("1m05s", "12.3s", "850ms"). */
export function formatDurationMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}
