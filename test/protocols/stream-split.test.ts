// Every stream fixture must decode to the same IR events however the bytes are cut: whole, in two
// at every offset (including inside multi-byte characters and between CR and LF), byte by byte,
// and with CRLF or CR line ends.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { byteByByte, withLineEnds } from './support/chunking.ts';
import { expectSameAtEverySplit } from './support/every-split.ts';
import { decodeStream } from './support/codecs.ts';
import { hasFile, readBytes, readJson, scenarios } from './support/fixtures.ts';

const streamScenarios = scenarios().filter((s) => hasFile(s, 'stream.wire.txt'));

describe('fixtures under test', () => {
  it('include a stream with multi-byte UTF-8 (3- and 4-byte sequences) for each protocol', () => {
    for (const protocol of ['openai', 'anthropic'] as const) {
      const unicode = streamScenarios.find((s) => s.protocol === protocol && s.name === 'text-unicode');
      expect(unicode, protocol).toBeDefined();
      const text = readBytes(unicode!, 'stream.wire.txt').toString('utf8');
      expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u); // CJK: 3 bytes each
      expect(text).toMatch(/\p{Extended_Pictographic}/u); // emoji: 4 bytes each
    }
  });
});

for (const scenario of streamScenarios) {
  describe(`${scenario.protocol}/${scenario.name}`, () => {
    const bytes = readBytes(scenario, 'stream.wire.txt');
    const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
    const decode = (chunks: Iterable<Uint8Array>) => decodeStream(scenario.protocol, chunks);

    it('whole', () => {
      expect(decode([bytes])).toEqual(expected);
    });

    it('split in two at every byte offset', () => {
      expectSameAtEverySplit(decode, bytes, expected);
    });

    it('one byte at a time', () => {
      expect(decode(byteByByte(bytes))).toEqual(expected);
    });

    for (const ending of ['\r\n', '\r'] as const) {
      const name = ending === '\r\n' ? 'CRLF' : 'CR';
      const converted = withLineEnds(bytes, ending);

      it(`with ${name} line ends, whole and byte by byte`, () => {
        expect(decode([converted])).toEqual(expected);
        expect(decode(byteByByte(converted))).toEqual(expected);
      });

      it(`with ${name} line ends, split in two at every byte offset`, () => {
        expectSameAtEverySplit(decode, converted, expected, `${name}, `);
      });
    }
  });
}
