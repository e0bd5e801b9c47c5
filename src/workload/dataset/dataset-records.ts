/**
 * A dataset file as a list of JSON records, each with the line it starts on: JSONL (one value per line) or
 * one JSON array of records, pretty-printed or not (the real ShareGPT file is one array of ~90k objects).
 * The array is split into its elements on the raw bytes (brackets, commas and quotes are ASCII, so UTF-8
 * continuation bytes never look like them) and each element is parsed alone, so a file larger than the
 * longest string V8 can hold still loads, and a bad element is reported at its own line.
 */
import { InferbenchError } from '../../errors.js';
import { fileText } from '../../profile/file-text.js';

export interface DatasetRecord {
  readonly value: unknown;
  /** 1-based line of the file the record starts on. */
  readonly line: number;
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const NOT_JSON = 'not valid JSON (an element of the JSON array)';

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === NEWLINE || byte === 0x0d || byte === 0x09;
}

function fail(path: string, line: number, what: string, hint?: string): never {
  throw new InferbenchError('BAD_PROFILE', `${path}:${line}: ${what}`, {
    hint: hint ?? 'a dataset is JSONL (one JSON value per line) or one JSON array of records',
  });
}

/** Records of a dataset file's bytes; a line or element that is not JSON is a BAD_PROFILE error naming it. */
export function datasetRecords(bytes: Buffer, path: string): DatasetRecord[] {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let first = start;
  while (first < bytes.length && isSpace(bytes[first]!)) first++;
  if (bytes[first] === OPEN_BRACKET) {
    const array = arrayElements(bytes, first, path);
    // A whole-file array (or a one-line file) of records; a first line that is a complete array followed by
    // more lines is JSONL whose lines are messages arrays.
    if (array !== null && !isMessagesArray(array)) return array;
  }
  return jsonLines(fileText(bytes, path, start), path);
}

/** A one-line JSONL file whose only line is a messages array reads as one record, not as records. */
function isMessagesArray(records: readonly DatasetRecord[]): boolean {
  return (
    records.length > 0 &&
    records.every(
      ({ value }) => typeof value === 'object' && value !== null && 'role' in value && !('conversations' in value),
    )
  );
}

function jsonLines(text: string, path: string): DatasetRecord[] {
  const records: DatasetRecord[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push({ value: JSON.parse(line), line: i + 1 });
    } catch {
      fail(path, i + 1, 'not valid JSON');
    }
  });
  return records;
}

/**
 * The elements of the array opening at `open`, or null when the array closes on its first line with more
 * text after it (a JSONL file of arrays). Tracks strings (with escapes) and nesting on the bytes.
 */
function arrayElements(bytes: Buffer, open: number, path: string): DatasetRecord[] | null {
  const records: DatasetRecord[] = [];
  let line = lineOf(bytes, open);
  const openLine = line;
  // The closers expected, innermost last: a mismatched bracket is bad JSON in the element it is in.
  const closers: number[] = [];
  let inString = false;
  let elementStart = -1;
  let elementLine = line;
  const push = (end: number): void => {
    if (elementStart < 0) fail(path, line, 'an empty element in the JSON array (two commas, or a comma before "]")');
    const text = bytes.toString('utf8', elementStart, end);
    try {
      records.push({ value: JSON.parse(text), line: elementLine });
    } catch {
      fail(path, elementLine, NOT_JSON);
    }
    elementStart = -1;
  };
  for (let i = open; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === NEWLINE) line++;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (closers.length === 1 && elementStart < 0 && !isSpace(byte) && byte !== COMMA && byte !== CLOSE_BRACKET) {
      elementStart = i;
      elementLine = line;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACKET) closers.push(CLOSE_BRACKET);
    else if (byte === OPEN_BRACE) closers.push(CLOSE_BRACE);
    else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      if (closers.pop() !== byte) fail(path, elementStart >= 0 ? elementLine : line, NOT_JSON);
      if (closers.length === 0) {
        if (elementStart >= 0 || records.length > 0) push(i);
        return afterArray(bytes, i + 1, line, openLine, path) ? records : null;
      }
    } else if (byte === COMMA && closers.length === 1) push(i);
  }
  return fail(path, elementStart >= 0 ? elementLine : line, 'the JSON array is not closed (the file ends inside it)');
}

/** True when only whitespace follows the array; false for a first-line array followed by more lines (JSONL). */
function afterArray(bytes: Buffer, from: number, closeLine: number, openLine: number, path: string): boolean {
  let line = closeLine;
  for (let i = from; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === NEWLINE) line++;
    else if (!isSpace(byte)) {
      if (closeLine === openLine) return false;
      fail(path, line, 'text after the end of the JSON array');
    }
  }
  return true;
}

function lineOf(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === NEWLINE) line++;
  return line;
}
