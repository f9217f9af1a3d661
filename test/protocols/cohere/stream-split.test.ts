// Every Cohere stream fixture must decode to the same IR events however the bytes are cut: whole,
// in two at every offset (inside multi-byte characters and between CR and LF too), byte by byte,
// and with CRLF or CR line ends.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte, withLineEnds } from '../support/chunking.ts';
import { expectSameAtEverySplit } from '../support/every-split.ts';
import { decodeStream, hasFile, readBytes, readJson, scenariosOf } from './support.ts';

const streamScenarios = scenariosOf('cohere').filter((s) => hasFile(s, 'stream.wire.txt'));

describe('fixtures under test', () => {
  it('include a stream with 3- and 4-byte UTF-8 sequences', () => {
    const unicode = streamScenarios.find((s) => s.name === 'text-unicode');
    expect(unicode).toBeDefined();
    const text = readBytes(unicode!, 'stream.wire.txt').toString('utf8');
    expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u);
    expect(text).toMatch(/\p{Extended_Pictographic}/u);
  });
});

for (const scenario of streamScenarios) {
  describe(`cohere/${scenario.name}`, () => {
    const bytes = readBytes(scenario, 'stream.wire.txt');
    const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');

    it('whole', () => {
      expect(decodeStream([bytes])).toEqual(expected);
    });

    it('split in two at every byte offset', () => {
      expectSameAtEverySplit(decodeStream, bytes, expected);
    });

    it('one byte at a time', () => {
      expect(decodeStream(byteByByte(bytes))).toEqual(expected);
    });

    for (const ending of ['\r\n', '\r'] as const) {
      const name = ending === '\r\n' ? 'CRLF' : 'CR';
      const converted = withLineEnds(bytes, ending);

      it(`with ${name} line ends, whole and byte by byte`, () => {
        expect(decodeStream([converted])).toEqual(expected);
        expect(decodeStream(byteByByte(converted))).toEqual(expected);
      });

      it(`with ${name} line ends, split in two at every byte offset`, () => {
        expectSameAtEverySplit(decodeStream, converted, expected, `${name}, `);
      });
    }
  });
}
