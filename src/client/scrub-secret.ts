/**
 * Keeps the API key out of every message the client records. Server messages and socket errors can
 * echo request headers; this removes the key wherever it appears and any bearer token, then shortens.
 */

const BEARER = /bearer\s+[^\s"',;]+/gi;
/** Error messages are labels in reports, not logs: long server bodies are cut. */
const MAX_MESSAGE_CHARS = 300;

/** Returns a function that removes `secret` (and any `Bearer <token>`) from a message and shortens it. */
export function createScrubber(secret: string | null): (message: string) => string {
  const key = secret !== null && secret.length > 0 ? secret : null;
  return (message: string): string => {
    let out = key === null ? message : message.split(key).join('***');
    out = out.replace(BEARER, 'Bearer ***');
    return out.length > MAX_MESSAGE_CHARS ? `${out.slice(0, MAX_MESSAGE_CHARS - 1)}…` : out;
  };
}

/** The strings of a record that come from the server as they were sent (ids, codes, names). */
interface ServerStrings {
  errorCode: string | null;
  finishReason: string | null;
  serviceTierUsed: string | null;
  responseId: string | null;
  serverRequestId: string | null;
  systemFingerprint: string | null;
}

const SERVER_STRING_FIELDS = [
  'errorCode',
  'finishReason',
  'serviceTierUsed',
  'responseId',
  'serverRequestId',
  'systemFingerprint',
] as const satisfies readonly (keyof ServerStrings)[];

/**
 * Removes the key from the strings a server chose (an error `code`, a response `id`): a server that
 * echoes the key there would otherwise put it into requests.csv. Messages are scrubbed where they are made.
 */
export function scrubServerStrings(record: ServerStrings, scrub: (text: string) => string): void {
  for (const field of SERVER_STRING_FIELDS) {
    const value = record[field];
    if (value !== null) record[field] = scrub(value);
  }
}
