/**
 * The body shape checks read bytes, not values, so they must agree with the parsers: every valid
 * MessagePack encoding (all integer, float, string, binary, ext, array and map widths) passes, brackets
 * and quotes inside JSON strings are not structure, and the depth and value limits hold exactly.
 */
import { encode, ExtData } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { checkJsonShape } from '../../../src/emulator/http/json-shape-check.js';
import { checkMsgpackShape } from '../../../src/emulator/http/msgpack-shape-check.js';

const limits = (maxDepth: number, maxValues: number) => ({ maxDepth, maxValues });

describe('checkMsgpackShape', () => {
  it('accepts every MessagePack type and width that the encoder writes', () => {
    const keys16 = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const value = {
      ints: [0, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32, -1, -32, -33, -128, -129, -32_768, -32_769, -(2 ** 40)],
      big: [2n ** 63n, -(2n ** 62n)],
      floats: [1.5, -0.25, 1e300],
      atoms: [null, true, false],
      strings: ['', 'x'.repeat(31), 'é'.repeat(20), 'y'.repeat(300), 'z'.repeat(70_000), '😀'],
      binaries: [new Uint8Array(3), new Uint8Array(300), new Uint8Array(70_000)],
      exts: [
        new ExtData(7, new Uint8Array(1)),
        new ExtData(7, new Uint8Array(16)),
        new ExtData(7, new Uint8Array(3)),
        new ExtData(7, new Uint8Array(300)),
        new Date(0),
      ],
      array16: Array.from({ length: 20 }, (_, i) => i),
      array32: Array.from({ length: 70_000 }, () => 1),
      map16: keys16,
    };
    for (const bytes of [encode(value, { useBigInt64: true }), encode({ f: [1.5] }, { forceFloat32: true })])
      expect(() => checkMsgpackShape(bytes)).not.toThrow();
  });

  it('holds the depth and value limits exactly', () => {
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    expect(() => checkMsgpackShape(encode(nested(4)), limits(4, 100))).not.toThrow();
    expect(() => checkMsgpackShape(encode(nested(5)), limits(4, 100))).toThrow(/deeper than 4 levels/);
    // [1, 2, 3] is four values: the array and its elements.
    expect(() => checkMsgpackShape(encode([1, 2, 3]), limits(4, 4))).not.toThrow();
    expect(() => checkMsgpackShape(encode([1, 2, 3, 4]), limits(4, 4))).toThrow(/more than 4 values/);
  });

  it('as a prefix check: every cut of a valid body passes, an excess in the prefix is still refused', () => {
    const body = encode({
      model: 'm',
      messages: [{ role: 'user', content: 'é'.repeat(200) }],
      n: 2 ** 40,
      b: new Uint8Array(70),
    });
    for (let cut = 0; cut <= body.length; cut++)
      expect(() => checkMsgpackShape(body.subarray(0, cut), undefined, true), `cut at ${cut}`).not.toThrow();
    const flood = Buffer.alloc(1_000, 0x80);
    flood[0] = 0xdd;
    flood.writeUInt32BE(30_000_000, 1);
    expect(() => checkMsgpackShape(flood, limits(4, 100), true)).toThrow(/more than 100 values/);
  });

  it('refuses truncated values, unused tag 0xc1 and an empty body', () => {
    expect(() => checkMsgpackShape(encode('x'.repeat(40)).subarray(0, 20))).toThrow(/runs past the end/);
    expect(() => checkMsgpackShape(Buffer.from([0xc1]))).toThrow(/0xc1 at offset 0 starts no value/);
    expect(() => checkMsgpackShape(Buffer.alloc(0))).toThrow(/truncated/);
  });
});

describe('checkJsonShape', () => {
  it('does not count brackets, commas or escaped quotes inside strings', () => {
    const json = Buffer.from(JSON.stringify({ a: '[[[[{{{{,,,,\\"[[[[', b: '\\', c: 'say "[[[["' }));
    expect(() => checkJsonShape(json, limits(1, 3))).not.toThrow();
  });

  it('holds the depth and value limits exactly', () => {
    expect(() => checkJsonShape(Buffer.from('[[[[1]]]]'), limits(4, 100))).not.toThrow();
    expect(() => checkJsonShape(Buffer.from('[[[[[1]]]]]'), limits(4, 100))).toThrow(/deeper than 4 levels/);
    // A container and each comma count: [1,2,3] counts 3, a bound on its 4 values.
    expect(() => checkJsonShape(Buffer.from('[1,2,3]'), limits(4, 3))).not.toThrow();
    expect(() => checkJsonShape(Buffer.from('[1,2,3,4]'), limits(4, 3))).toThrow(/more than 3 values/);
  });
});
