// Every Bedrock stream fixture must decode to the same IR events however the network cuts the
// bytes: whole, in two at every offset (inside preludes, headers, payloads, CRCs and multi-byte
// characters), byte by byte, and in seeded random chunkings.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte } from '../support/chunking.ts';
import { expectSameAtEverySplit } from '../support/every-split.ts';
import { seededRandom } from '../support/random-json.ts';
import { hasFile, readBytes, readJson, scenarios } from './support/fixtures.ts';
import { decodeStream } from './support/stream.ts';

const streamScenarios = scenarios().filter((s) => hasFile(s, 'stream.wire.bin'));

describe('bedrock stream fixtures under test', () => {
  it('include one with 3- and 4-byte UTF-8 sequences', () => {
    const unicode = streamScenarios.find((s) => s.name === 'text-unicode');
    expect(unicode).toBeDefined();
    const text = readBytes(unicode!, 'stream.wire.bin').toString('utf8');
    expect(text).toMatch(/[\u3040-\u30ff]/u);
    expect(text).toMatch(/\p{Extended_Pictographic}/u);
  });
});

for (const scenario of streamScenarios) {
  describe(`bedrock/${scenario.name}`, () => {
    const bytes = readBytes(scenario, 'stream.wire.bin');
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

    it('in 200 seeded random chunkings', () => {
      const random = seededRandom(scenario.name.length * 7919);
      for (let round = 0; round < 200; round++) {
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < bytes.length;) {
          const size = 1 + Math.floor(random() * 40);
          chunks.push(bytes.subarray(at, at + size));
          at += size;
        }
        const events = decodeStream(chunks);
        if (!isEqual(events, expected)) expect(events, `round ${round}`).toEqual(expected);
      }
    });
  });
}

function isEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
