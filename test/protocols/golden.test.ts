// Walks test/fixtures/<protocol>/<scenario>/ and checks every pair it finds, both ways:
// wire -> IR must equal the reviewed *.ir.json, and IR -> wire must be schema-valid and decode
// back to the same IR (minus what the wire format has no room for, see support/survivable.ts).
import { describe, expect, it } from 'vitest';
import type { ChatResponse, StreamEvent } from '../../server/ir/index.ts';
import { codecOf, decodeStream, encodeStream } from './support/codecs.ts';
import { FIXTURE_PROTOCOLS, REGENERATE, hasFile, readBytes, readJson, scenarios, writeJson, type Scenario } from './support/fixtures.ts';
import { streamProblems } from './support/stream-validity.ts';
import { survivingResponse, survivingStream } from './support/survivable.ts';
import { VALIDATORS, schemaErrors } from './support/validators.ts';

/** Scenarios every protocol must cover; a deleted folder must fail the suite, not shrink it. */
const REQUIRED: Record<string, readonly string[]> = {
  openai: ['text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached', 'refusal', 'text-unicode', 'stream-error', 'stream-truncated'],
  anthropic: ['text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached', 'thinking-with-signature', 'refusal', 'text-unicode', 'stream-error', 'stream-truncated'],
};

function expectGolden(scenario: Scenario, file: string, actual: unknown): void {
  if (REGENERATE) writeJson(scenario, file, actual);
  else expect(actual).toEqual(readJson(scenario, file));
}

describe('fixture inventory', () => {
  for (const protocol of FIXTURE_PROTOCOLS) {
    it(`${protocol} has every required scenario`, () => {
      const names = scenarios(protocol).map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining([...(REQUIRED[protocol] ?? [])]));
    });
  }
  for (const scenario of scenarios()) {
    it(`${scenario.protocol}/${scenario.name} has both halves of every pair`, () => {
      for (const [wire, ir] of [['request.wire.json', 'request.ir.json'], ['response.wire.json', 'response.ir.json'], ['stream.wire.txt', 'stream.ir.json']] as const) {
        expect(hasFile(scenario, ir), `${ir} present iff ${wire} is`).toBe(hasFile(scenario, wire));
      }
    });
  }
});

for (const scenario of scenarios()) {
  const { protocol } = scenario;
  const codec = codecOf(protocol);
  const schemas = VALIDATORS[protocol];

  describe(`${protocol}/${scenario.name}`, () => {
    if (hasFile(scenario, 'request.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'request.wire.json');

      it('request.wire.json is a valid request', () => {
        expect(schemaErrors(schemas.request, wire)).toEqual([]);
      });

      it('decodeRequest gives request.ir.json', () => {
        expectGolden(scenario, 'request.ir.json', codec.decodeRequest(structuredClone(wire), {}));
      });
    }

    if (hasFile(scenario, 'response.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'response.wire.json');

      it('response.wire.json is a valid response', () => {
        expect(schemaErrors(schemas.response, wire)).toEqual([]);
      });

      it('decodeResponse gives response.ir.json', () => {
        expectGolden(scenario, 'response.ir.json', codec.decodeResponse(structuredClone(wire)));
      });

      it('encodeResponse(response.ir.json) is valid and decodes back to the same IR', () => {
        const ir = readJson<ChatResponse>(scenario, 'response.ir.json');
        const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(schemas.response, body)).toEqual([]);
        expect(warnings).toEqual([]);
        const decoded = codec.decodeResponse(JSON.parse(JSON.stringify(body)));
        expect(survivingResponse(protocol, decoded)).toEqual(survivingResponse(protocol, ir));
      });
    }

    if (hasFile(scenario, 'stream.wire.txt')) {
      const bytes = readBytes(scenario, 'stream.wire.txt');

      it('every SSE data payload of stream.wire.txt is a valid stream event', () => {
        expect(streamProblems(protocol, bytes.toString('utf8'))).toEqual([]);
      });

      it('the stream decoder gives stream.ir.json', () => {
        expectGolden(scenario, 'stream.ir.json', decodeStream(protocol, [bytes]));
      });

      it('the stream encoder output for stream.ir.json is valid and decodes back to the same events', () => {
        const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
        const text = encodeStream(protocol, events);
        expect(streamProblems(protocol, text)).toEqual([]);
        const decoded = decodeStream(protocol, [Buffer.from(text)]);
        expect(survivingStream(protocol, decoded)).toEqual(survivingStream(protocol, events));
      });
    }
  });
}
