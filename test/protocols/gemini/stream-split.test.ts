// Every Gemini stream fixture (SSE and JSON array) must decode to the same IR events however the
// bytes are cut: whole, in two at every offset (inside multi-byte characters and between CR and LF
// too), byte by byte, and, for SSE, with LF or CR line ends instead of Google's CRLF.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { expectSameAtEverySplit } from '../support/every-split.ts';
import { byteByByte, decodeChunks, hasFile, readBytes, readJson, scenarios } from './support.ts';

describe('fixtures under test', () => {
  it('include streams with 3- and 4-byte UTF-8 in both framings', () => {
    const unicode = scenarios().find((s) => s.name === 'text-unicode');
    expect(unicode).toBeDefined();
    for (const file of ['stream.wire.txt', 'stream.array.txt']) {
      const text = readBytes(unicode!, file).toString('utf8');
      expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u);
      expect(text).toMatch(/\p{Extended_Pictographic}/u);
    }
  });
});

for (const scenario of scenarios()) {
  for (const file of ['stream.wire.txt', 'stream.array.txt']) {
    if (!hasFile(scenario, file)) continue;
    describe(`gemini/${scenario.name}/${file}`, () => {
      const bytes = readBytes(scenario, file);
      const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');

      it('whole', () => {
        expect(decodeChunks([bytes])).toEqual(expected);
      });

      it('split in two at every byte offset', () => {
        expectSameAtEverySplit(decodeChunks, bytes, expected);
      });

      it('one byte at a time', () => {
        expect(decodeChunks(byteByByte(bytes))).toEqual(expected);
      });

      if (file === 'stream.wire.txt') {
        it.each([['LF', '\n'], ['CR', '\r']])('with %s line ends, split at every offset', (_, ending) => {
          const other = Buffer.from(bytes.toString('latin1').replaceAll('\r\n', ending), 'latin1');
          expectSameAtEverySplit(decodeChunks, other, expected);
        });
      }
    });
  }
}
