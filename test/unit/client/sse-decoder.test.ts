/**
 * The SSE decoder against hand-written streams split at every byte offset (inside UTF-8 characters,
 * between CR and LF), with CRLF, CR and LF line ends, comments, multi-line data, event names and [DONE].
 */
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../src/client/sse-decoder.js';

interface Decoded {
  data: string;
  event: string;
}

function decode(parts: readonly Buffer[], end = true): Decoded[] {
  const events: Decoded[] = [];
  const decoder = new SseDecoder({ onSseEvent: (data, event) => events.push({ data, event }) });
  for (const part of parts) decoder.push(part);
  if (end) decoder.end();
  return events;
}

/** Every way of cutting `bytes` into two reads, plus byte-by-byte. */
function splits(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [[bytes]];
  for (let cut = 0; cut <= bytes.length; cut += 1) out.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  out.push([...bytes].map((b) => Buffer.from([b])));
  return out;
}

const STREAM = [
  ': keep-alive comment',
  'data: {"choices":[{"delta":{"role":"assistant"}}]}',
  '',
  'data: {"choices":[{"delta":{"content":"héllo wörld 日本語 🎉"}}]}',
  '',
  'event: error',
  'data: {"error":{"message":"boom"}}',
  '',
  'data: first line',
  'data: second 🎉 line',
  'data:no-space',
  '',
  ':another comment',
  'id: 7',
  'retry: 100',
  'data',
  '',
  'data: [DONE]',
  '',
];

const EXPECTED: Decoded[] = [
  { data: '{"choices":[{"delta":{"role":"assistant"}}]}', event: 'message' },
  { data: '{"choices":[{"delta":{"content":"héllo wörld 日本語 🎉"}}]}', event: 'message' },
  { data: '{"error":{"message":"boom"}}', event: 'error' },
  { data: 'first line\nsecond 🎉 line\nno-space', event: 'message' },
  { data: '', event: 'message' },
  { data: '[DONE]', event: 'message' },
];

describe('SseDecoder', () => {
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`decodes a ${name} stream split at every byte offset`, () => {
      const bytes = Buffer.from(STREAM.join(eol) + eol, 'utf8');
      for (const parts of splits(bytes)) {
        expect(decode(parts)).toEqual(EXPECTED);
      }
    });
  }

  it('decodes mixed line ends with a CR LF pair split across reads', () => {
    const bytes = Buffer.from('data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n', 'utf8');
    for (const parts of splits(bytes)) {
      expect(decode(parts).map((e) => e.data)).toEqual(['a', 'b', 'c', 'd']);
    }
  });

  it('delivers each event as soon as its blank line arrives, not at the end', () => {
    const events: string[] = [];
    const decoder = new SseDecoder({ onSseEvent: (data) => events.push(data) });
    decoder.push(Buffer.from('data: one\n'));
    expect(events).toEqual([]);
    decoder.push(Buffer.from('\ndata: tw'));
    expect(events).toEqual(['one']);
    decoder.push(Buffer.from('o\n\n'));
    expect(events).toEqual(['one', 'two']);
  });

  it('keeps bytes of a character split across reads intact (no U+FFFD)', () => {
    const bytes = Buffer.from('data: 🎉\n\n', 'utf8');
    // Cut inside the 4-byte emoji at each of its inner offsets.
    for (let cut = 7; cut <= 9; cut += 1) {
      const events = decode([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events).toEqual([{ data: '🎉', event: 'message' }]);
    }
  });

  it('takes the end of the body as the end of a last event without blank line', () => {
    expect(decode([Buffer.from('data: {"a":1}\n\ndata: {"b":2}')])).toEqual([
      { data: '{"a":1}', event: 'message' },
      { data: '{"b":2}', event: 'message' },
    ]);
    expect(decode([Buffer.from('data: x\n')], false)).toEqual([]);
  });

  it('ignores events without data lines and resets their event name', () => {
    expect(decode([Buffer.from('event: ping\n\ndata: x\n\n')])).toEqual([{ data: 'x', event: 'message' }]);
  });

  it('strips a leading UTF-8 BOM only at the start of the stream', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(decode([Buffer.concat([bom, Buffer.from('data: x\n\n')])])).toEqual([{ data: 'x', event: 'message' }]);
  });

  it('decodes a data line of megabytes cut into 1,460-byte reads whole, multi-byte characters included', () => {
    const value = `{"content":"${'é中😀x'.repeat(200_000)}"}`;
    const bytes = Buffer.from(`event: big\ndata: ${value}\n\ndata: next\n\n`, 'utf8');
    const reads: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 1460) reads.push(bytes.subarray(at, at + 1460));
    expect(decode(reads)).toEqual([
      { data: value, event: 'big' },
      { data: 'next', event: 'message' },
    ]);
  });
});
