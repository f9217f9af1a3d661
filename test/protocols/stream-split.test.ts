// Every stream fixture of every protocol must decode to the same IR events however the bytes are
// cut: whole, in two at every offset (inside multi-byte characters, between CR and LF, inside
// event-stream preludes, headers, payloads and CRCs), byte by byte, with the other line ends SSE
// allows, and (binary framing) in seeded random chunkings. One table row a protocol:
// support/stream-fixtures.ts.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { byteByByte } from './support/chunking.ts';
import { expectSameAtEverySplit } from './support/every-split.ts';
import { hasFile, readBytes, readJson, scenariosIn } from './support/fixtures.ts';
import { seededRandom } from './support/random-json.ts';
import { STREAM_FIXTURES, decodeStreamOf } from './support/stream-fixtures.ts';

describe.each(PROTOCOL_IDS)('%s stream fixtures under test', (protocol) => {
  const { files, unicodeScenario, threeByte } = STREAM_FIXTURES[protocol];
  it.each(files.map((f) => f.file))('include 3- and 4-byte UTF-8 sequences in %s', (file) => {
    const scenarios = scenariosIn(protocol).filter((s) => (unicodeScenario === undefined || s.name === unicodeScenario) && hasFile(s, file));
    expect(scenarios.length, unicodeScenario ?? 'any scenario').toBeGreaterThan(0);
    const text = scenarios.map((s) => readBytes(s, file).toString('utf8')).join('');
    expect(text).toMatch(threeByte); // CJK: 3 bytes each
    expect(text).toMatch(/\p{Extended_Pictographic}/u); // emoji: 4 bytes each
  });
});

for (const protocol of PROTOCOL_IDS) {
  const { files, randomChunkings } = STREAM_FIXTURES[protocol];
  const decode = decodeStreamOf(protocol);
  for (const scenario of scenariosIn(protocol)) {
    for (const { file, lineEnds } of files) {
      if (!hasFile(scenario, file)) continue;
      describe(`${protocol}/${scenario.name}/${file}`, () => {
        const bytes = readBytes(scenario, file);
        const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');

        it('whole', () => {
          expect(decode([bytes])).toEqual(expected);
        });

        it('split in two at every byte offset', () => {
          expectSameAtEverySplit(decode, bytes, expected);
        });

        it('one byte at a time', () => {
          expect(decode(byteByByte(bytes))).toEqual(expected);
        });

        for (const { name, convert } of lineEnds) {
          const converted = convert(bytes);

          it(`with ${name} line ends, whole and byte by byte`, () => {
            expect(decode([converted])).toEqual(expected);
            expect(decode(byteByByte(converted))).toEqual(expected);
          });

          it(`with ${name} line ends, split in two at every byte offset`, () => {
            expectSameAtEverySplit(decode, converted, expected, `${name}, `);
          });
        }

        if (randomChunkings > 0) {
          it(`in ${randomChunkings} seeded random chunkings`, () => {
            const random = seededRandom(scenario.name.length * 7919);
            for (let round = 0; round < randomChunkings; round++) {
              const chunks: Uint8Array[] = [];
              for (let at = 0; at < bytes.length; ) {
                const size = 1 + Math.floor(random() * 40);
                chunks.push(bytes.subarray(at, at + size));
                at += size;
              }
              const events = decode(chunks);
              if (!isDeepStrictEqual(events, expected)) expect(events, `round ${round}`).toEqual(expected);
            }
          });
        }
      });
    }
  }
}
