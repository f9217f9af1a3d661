// Walks test/fixtures/cohere/ and checks every pair both ways: wire -> IR must equal the reviewed
// *.ir.json, and IR -> wire must be schema-valid and decode back to the same IR.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { COHERE_LANE, SCHEMAS, codec, decodeStream, encodeStream, hasFile, readBytes, readJson, scenariosOf, streamProblems } from './support.ts';

/** Scenarios the Cohere folder must cover; a deleted folder must fail the suite, not shrink it. */
const REQUIRED = [
  'text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached', 'thinking',
  'text-unicode', 'stream-error', 'stream-truncated',
];

const scenarios = scenariosOf('cohere');

describe('fixture inventory', () => {
  it('has every required scenario (Cohere has no refusal or content-filter signal, so no such scenario)', () => {
    expect(scenarios.map((s) => s.name)).toEqual(expect.arrayContaining(REQUIRED));
  });

  for (const scenario of scenarios) {
    it(`${scenario.name} has both halves of every pair`, () => {
      for (const [wire, ir] of [['request.wire.json', 'request.ir.json'], ['response.wire.json', 'response.ir.json'], ['stream.wire.txt', 'stream.ir.json']] as const) {
        expect(hasFile(scenario, ir), `${ir} present iff ${wire} is`).toBe(hasFile(scenario, wire));
      }
    });
  }
});

for (const scenario of scenarios) {
  describe(`cohere/${scenario.name}`, () => {
    if (hasFile(scenario, 'request.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'request.wire.json');
      const ir = readJson<ChatRequest>(scenario, 'request.ir.json');

      it('request.wire.json is a valid request', () => {
        expect(schemaErrors(SCHEMAS.request, wire)).toEqual([]);
      });

      it('decodeRequest gives request.ir.json', () => {
        expect(codec.decodeRequest(structuredClone(wire), {})).toEqual(ir);
      });

      // The unmapped fields are the client's, not the IR's: no encoder writes them, so they do
      // not come back; the model is the lane's.
      it('encodeRequest(request.ir.json) is valid, warns about nothing and decodes back to the same IR', () => {
        const { body, warnings } = codec.encodeRequest(ir, COHERE_LANE);
        expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(codec.decodeRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, {}))
          .toEqual({ ...ir, model: COHERE_LANE.model, unmapped: [] });
      });
    }

    if (hasFile(scenario, 'response.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'response.wire.json');
      const ir = readJson<ChatResponse>(scenario, 'response.ir.json');

      it('response.wire.json is a valid response', () => {
        expect(schemaErrors(SCHEMAS.response, wire)).toEqual([]);
      });

      it('decodeResponse gives response.ir.json', () => {
        expect(codec.decodeResponse(structuredClone(wire))).toEqual(ir);
      });

      it('encodeResponse(response.ir.json) is valid, warns about nothing and decodes back to the same IR', () => {
        const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(codec.decodeResponse(JSON.parse(JSON.stringify(body)) as Record<string, unknown>)).toEqual(ir);
      });
    }

    if (hasFile(scenario, 'stream.wire.txt')) {
      const bytes = readBytes(scenario, 'stream.wire.txt');
      const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');

      it('stream.wire.txt follows the v2 Chat stream grammar (unless it is the truncated one)', () => {
        const problems = streamProblems(bytes.toString('utf8'));
        expect(problems).toEqual(scenario.name === 'stream-truncated' ? ['no message-end'] : []);
      });

      it('the stream decoder gives stream.ir.json', () => {
        expect(decodeStream([bytes])).toEqual(events);
      });

      // A truncation is the decoder's own finding, not an upstream event: re-encoded, it is a
      // Cohere error end (kind server), which decodes with the status and code of that form.
      it('the stream encoder output for stream.ir.json is valid and decodes back to the same events', () => {
        const { text, warnings } = encodeStream(events);
        expect(streamProblems(text)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(decodeStream([Buffer.from(text)]).map(surviving)).toEqual(events.map(surviving));
      });
    }
  });
}

/** An in-stream error keeps its kind and message on the wire (message-end delta.error), not its status or code. */
function surviving(event: StreamEvent): unknown {
  if (event.type !== 'error') return event;
  return { type: 'error', error: { kind: event.error.kind, message: event.error.message } };
}
