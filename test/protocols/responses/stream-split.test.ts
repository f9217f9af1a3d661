// Every Responses stream fixture decodes to the same IR events however the bytes are cut: whole,
// in two at every offset (inside multi-byte characters, between CR and LF), byte by byte, and with
// CRLF or CR line ends.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte, withLineEnds } from '../support/chunking.ts';
import { expectSameAtEverySplit } from '../support/every-split.ts';
import { bytes, decodeStream, fixtures, has, json } from './support.ts';

const streams = fixtures('responses').filter((f) => has(f, 'stream.wire.txt'));

it('the fixtures include multi-byte UTF-8 (3- and 4-byte sequences)', () => {
  const text = streams.map((f) => bytes(f, 'stream.wire.txt').toString('utf8')).join('');
  expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u);
  expect(text).toMatch(/\p{Extended_Pictographic}/u);
});

for (const f of streams) {
  describe(`responses/${f.name}`, () => {
    const wire = bytes(f, 'stream.wire.txt');
    const expected = json<StreamEvent[]>(f, 'stream.ir.json');

    it('whole and one byte at a time', () => {
      expect(decodeStream([wire])).toEqual(expected);
      expect(decodeStream(byteByByte(wire))).toEqual(expected);
    });

    it('split in two at every byte offset', () => {
      expectSameAtEverySplit(decodeStream, wire, expected);
    });

    for (const ending of ['\r\n', '\r'] as const) {
      const name = ending === '\r\n' ? 'CRLF' : 'CR';
      const converted = withLineEnds(wire, ending);
      it(`with ${name} line ends, whole, byte by byte and split at every offset`, () => {
        expect(decodeStream([converted])).toEqual(expected);
        expect(decodeStream(byteByByte(converted))).toEqual(expected);
        expectSameAtEverySplit(decodeStream, converted, expected, `${name}, `);
      });
    }
  });
}
