/**
 * The text of a dataset or trace file's bytes. Node cannot hold a string longer than
 * buffer.constants.MAX_STRING_LENGTH (2^29 - 24 characters, about 512 MiB, in Node 20), and decoding a
 * larger file throws ERR_STRING_TOO_LONG as a plain Error: here that is a BAD_PROFILE error naming the
 * file and what to do. A leading UTF-8 byte order mark is dropped (editors on Windows write one).
 */
import { InferbenchError } from '../errors.js';

/** The bytes of a file, as far as decoding needs them (a Buffer; a test may pass a stand-in). */
export type FileBytes = Pick<Buffer, 'length' | 'toString'>;

const MIB = 1024 * 1024;

/** The UTF-8 text of `bytes` from `start`, without a byte order mark; `path` names the file in errors. */
export function fileText(bytes: FileBytes, path: string, start = 0): string {
  let text: string;
  try {
    text = bytes.toString('utf8', start);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STRING_TOO_LONG') throw error;
    throw new InferbenchError(
      'BAD_PROFILE',
      `${path}: too large to read (${Math.round(bytes.length / MIB)} MiB; Node holds at most about 512 MiB of text in one string)`,
      { hint: 'split the file into parts below 512 MiB (one scenario each), or pre-filter it to the records you need' },
    );
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
