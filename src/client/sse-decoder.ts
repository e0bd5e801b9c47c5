/**
 * Incremental Server-Sent Events decoder (WHATWG "event stream interpretation") working on the raw
 * Buffers of TCP reads. Owns framing only: lines, fields, events. It never parses JSON; the caller gets
 * each event's data string and name.
 *
 * Why bytes and not per-chunk strings: a read can end inside a multi-byte UTF-8 character. Line
 * terminators (0x0A, 0x0D) never occur inside a UTF-8 sequence, so decoding only whole lines is always
 * correct; bytes of an unfinished line are carried over to the next read.
 *
 * Written apart from the emulator's encoder on purpose (STYLE.md 9): a framing bug cannot hide by being
 * symmetric.
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
/** First buffer for a carried line: most carried lines are one event cut by a read boundary. */
const MIN_CARRY_BYTES = 1024;

/** True when chunk[from..] starts with the bytes `data:`. */
function isDataField(chunk: Buffer, from: number): boolean {
  return (
    chunk[from] === 0x64 &&
    chunk[from + 1] === 0x61 &&
    chunk[from + 2] === 0x74 &&
    chunk[from + 3] === 0x61 &&
    chunk[from + 4] === COLON
  );
}

/** Receives decoded events. `event` is the `event:` field, or `message` when the event had none. */
export interface SseEventSink {
  onSseEvent(data: string, event: string): void;
}

/**
 * Feed every response Buffer to `push()`, then call `end()` once at the end of the body. Events are
 * delivered synchronously to the sink, in order, as soon as their terminating blank line arrives.
 */
export class SseDecoder {
  readonly #sink: SseEventSink;
  /**
   * Bytes of a line not yet terminated (null when the last read ended on a line end), copied into one
   * buffer that doubles as it fills: a line of megabytes over thousands of reads costs about twice its
   * length in copies, never its length times the number of reads, and no list to join at the end.
   */
  #carry: Buffer | null = null;
  #carryLength = 0;
  /** The previous read ended with CR: a LF at the start of the next read belongs to that CRLF. */
  #skipLeadingLf = false;
  /** Only the very first bytes of a stream may hold a UTF-8 BOM. */
  #atStreamStart = true;
  #data = '';
  #hasData = false;
  #event = '';

  constructor(sink: SseEventSink) {
    this.#sink = sink;
  }

  /** Decodes one read; delivers every event it completes. */
  push(chunk: Buffer): void {
    let start = 0;
    const length = chunk.length;
    if (this.#atStreamStart) {
      if (length === 0) return;
      // A BOM split across reads is vanishingly rare; only a whole leading BOM is stripped.
      if (length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) start = 3;
      this.#atStreamStart = false;
    }
    if (this.#skipLeadingLf && start < length) {
      if (chunk[start] === LF) start += 1;
      this.#skipLeadingLf = false;
    }
    let lineStart = start;
    if (chunk.indexOf(CR, start) === -1) {
      // The common case (LF-only framing): native scans for line ends.
      for (let nl = chunk.indexOf(LF, start); nl !== -1; nl = chunk.indexOf(LF, lineStart)) {
        this.#line(chunk, lineStart, nl);
        lineStart = nl + 1;
      }
    } else {
      for (let i = start; i < length; i += 1) {
        const byte = chunk[i];
        if (byte !== LF && byte !== CR) continue;
        this.#line(chunk, lineStart, i);
        if (byte === CR) {
          if (i + 1 < length) {
            if (chunk[i + 1] === LF) i += 1;
          } else {
            this.#skipLeadingLf = true;
          }
        }
        lineStart = i + 1;
      }
    }
    if (lineStart < length) {
      // Copy: undici may reuse the memory of a chunk once the handler returns.
      this.#appendCarry(chunk, lineStart, length);
    }
  }

  #appendCarry(chunk: Buffer, from: number, to: number): void {
    const needed = this.#carryLength + (to - from);
    let carry = this.#carry;
    if (carry === null || carry.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(MIN_CARRY_BYTES, needed, carry === null ? 0 : 2 * carry.length));
      if (carry !== null) carry.copy(grown, 0, 0, this.#carryLength);
      carry = grown;
      this.#carry = grown;
    }
    chunk.copy(carry, this.#carryLength, from, to);
    this.#carryLength = needed;
  }

  /**
   * End of body. A final line without terminator is taken as a line, and a pending event is delivered:
   * servers that stop without the closing blank line still get their last event read (more lenient than
   * the WHATWG rule, which drops it; a truncated JSON payload then shows up as a bad chunk, not silently).
   */
  end(): void {
    this.#flushCarry();
    this.#dispatch();
  }

  /** A complete line is chunk[from, to) preceded by any carried bytes. */
  #line(chunk: Buffer, from: number, to: number): void {
    if (this.#carry === null) {
      this.#wholeLine(chunk, from, to);
      return;
    }
    this.#appendCarry(chunk, from, to);
    this.#flushCarry();
  }

  /** The carried bytes as a whole line; the carry is empty afterwards. */
  #flushCarry(): void {
    const carry = this.#carry;
    const length = this.#carryLength;
    this.#carry = null;
    this.#carryLength = 0;
    if (carry !== null) this.#wholeLine(carry, 0, length);
  }

  /** A whole line, bytes[from, to), without its terminator. */
  #wholeLine(bytes: Buffer, from: number, to: number): void {
    if (to === from) {
      this.#dispatch();
      return;
    }
    // Comment lines (keep-alives) are skipped without decoding them.
    if (bytes[from] === COLON) return;
    // `data:` lines, nearly all of a stream: only the value is decoded (no line string, no field string).
    if (to - from >= 5 && isDataField(bytes, from)) {
      const valueStart = from + 5 < to && bytes[from + 5] === SPACE ? from + 6 : from + 5;
      this.#addData(bytes.toString('utf8', valueStart, to));
      return;
    }
    this.#processLine(bytes.toString('utf8', from, to));
  }

  #addData(value: string): void {
    this.#data = this.#hasData ? `${this.#data}\n${value}` : value;
    this.#hasData = true;
  }

  #processLine(line: string): void {
    if (line.length === 0) {
      this.#dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return;
    let field: string;
    let value: string;
    if (colon < 0) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      const valueStart = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(valueStart);
    }
    if (field === 'data') {
      this.#addData(value);
    } else if (field === 'event') {
      this.#event = value;
    }
    // `id` and `retry` matter for EventSource reconnection only; a benchmark never reconnects.
  }

  #dispatch(): void {
    if (!this.#hasData) {
      this.#event = '';
      return;
    }
    const data = this.#data;
    const event = this.#event === '' ? 'message' : this.#event;
    this.#data = '';
    this.#hasData = false;
    this.#event = '';
    this.#sink.onSseEvent(data, event);
  }
}
