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
   * Bytes of a line not yet terminated, one copy per read (null when the last read ended on a line end):
   * joined once when the line ends, so a line of megabytes over hundreds of reads costs its length, not
   * its length times the number of reads.
   */
  #carry: Buffer[] | null = null;
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
      const rest = chunk.subarray(lineStart, length);
      // Copy: undici may reuse the memory of a chunk once the handler returns.
      if (this.#carry === null) this.#carry = [Buffer.from(rest)];
      else this.#carry.push(Buffer.from(rest));
    }
  }

  /**
   * End of body. A final line without terminator is taken as a line, and a pending event is delivered:
   * servers that stop without the closing blank line still get their last event read (more lenient than
   * the WHATWG rule, which drops it; a truncated JSON payload then shows up as a bad chunk, not silently).
   */
  end(): void {
    if (this.#carry !== null) {
      const carry = this.#carry;
      this.#carry = null;
      this.#processLine(Buffer.concat(carry).toString('utf8'));
    }
    this.#dispatch();
  }

  /** A complete line is chunk[from, to) preceded by any carried bytes. */
  #line(chunk: Buffer, from: number, to: number): void {
    if (this.#carry !== null) {
      if (to > from) this.#carry.push(chunk.subarray(from, to));
      const whole = Buffer.concat(this.#carry);
      this.#carry = null;
      this.#processLine(whole.toString('utf8'));
      return;
    }
    if (to === from) {
      this.#dispatch();
      return;
    }
    // Comment lines (keep-alives) are skipped without decoding them.
    if (chunk[from] === COLON) return;
    this.#processLine(chunk.toString('utf8', from, to));
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
      this.#data = this.#hasData ? `${this.#data}\n${value}` : value;
      this.#hasData = true;
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
