// A stream must never end cleanly unless it is complete (its terminator, Gemini's finishing chunk,
// Bedrock's messageStop): a cut anywhere before that ends the IR stream with exactly one error
// event, and once it is complete a cut changes nothing. Every complete stream fixture of all six
// protocols, cut at every byte; one table row a protocol in support/truncation-rows.ts.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { hasFile, readBytes, readJson, scenariosIn } from './support/fixtures.ts';
import { decodeStreamOf } from './support/stream-fixtures.ts';
import { TRUNCATION } from './support/truncation-rows.ts';

for (const protocol of PROTOCOL_IDS) {
  const row = TRUNCATION[protocol];
  const decode = decodeStreamOf(protocol);
  const complete = scenariosIn(protocol).filter(
    (s) => hasFile(s, 'stream.ir.json') && readJson<StreamEvent[]>(s, 'stream.ir.json').at(-1)?.type === 'message_stop',
  );

  describe(`a ${protocol} stream that ends before it is complete`, () => {
    it('is covered by complete fixtures', () => {
      row.covered(complete);
    });

    for (const scenario of complete) {
      for (const file of row.files) {
        if (!hasFile(scenario, file)) continue;
        const bytes = readBytes(scenario, file);
        const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
        const end = row.completeAt(bytes, file);
        const { withoutTerminator } = row;

        if (withoutTerminator !== undefined) {
          it(`${scenario.name}/${file}: without its terminator, ends with the truncation error instead`, () => {
            withoutTerminator(bytes, file, expected, decode);
          });
        }

        it(`${scenario.name}/${file}: cut at any byte before it is complete, ends with exactly one error`, () => {
          for (let offset = 0; offset < end; offset++) {
            const events = decode([bytes.subarray(0, offset)]);
            const where = `cut at byte ${offset} of ${bytes.length}`;
            expect(
              events.filter((e) => e.type === 'error'),
              where,
            ).toHaveLength(1);
            // A cut inside a data line leaves a fragment that is not JSON; both are 502 server errors.
            expect(events.at(-1), where).toMatchObject({ type: 'error', error: row.cutError });
            const before = row.comparable(events.slice(0, -1));
            expect(before, where).toEqual(row.comparable(expected).slice(0, before.length));
            expect(
              before.some((e) => row.neverBefore.includes(e.type)),
              where,
            ).toBe(false);
          }
        });

        it(`${scenario.name}/${file}: once it is complete, the end is clean wherever the rest is cut`, () => {
          for (let offset = end; offset <= bytes.length; offset++) {
            expect(decode([bytes.subarray(0, offset)]), `cut at byte ${offset}`).toEqual(row.afterComplete?.(expected, offset, bytes) ?? expected);
          }
        });
      }
    }
  });
}
