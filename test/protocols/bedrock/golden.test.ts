// Walks test/fixtures/bedrock/<scenario>/ and checks every pair both ways: wire -> IR must equal
// the reviewed *.ir.json, and IR -> wire must be schema-valid and decode back to the same IR
// (minus what the wire has no room for, see support/survivable.ts).
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { REGENERATE, hasFile, originOf, readBytes, readJson, scenarios, writeBytes } from './support/fixtures.ts';
import { asStreamEvent, bytesToFrames, framesToBytes, type FixtureFrame } from './support/frames.ts';
import { decodeStream, encodeStream, streamProblems } from './support/stream.ts';
import { survivingStream } from './support/survivable.ts';
import { BEDROCK } from './support/validators.ts';

const REQUIRED = [
  'text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached',
  'reasoning-with-signature', 'content-filter', 'text-unicode', 'stream-error', 'stream-truncated', 'stream-metadata-first',
];
const CLAUDE_LANE = { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', defaultMaxTokens: 2048 };

describe('bedrock fixture inventory', () => {
  it('has every required scenario', () => {
    expect(scenarios().map((s) => s.name)).toEqual(expect.arrayContaining(REQUIRED));
  });
  for (const scenario of scenarios()) {
    it(`${scenario.name} has both halves of every pair`, () => {
      const pairs = [['request.wire.json', 'request.ir.json'], ['response.wire.json', 'response.ir.json'], ['stream.wire.bin', 'stream.ir.json'], ['stream.frames.json', 'stream.wire.bin']];
      for (const [wire, ir] of pairs as [string, string][]) expect(hasFile(scenario, ir), `${ir} present iff ${wire} is`).toBe(hasFile(scenario, wire));
    });
  }
});

for (const scenario of scenarios()) {
  describe(`bedrock/${scenario.name}`, () => {
    if (hasFile(scenario, 'request.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'request.wire.json');
      const ir = readJson<ChatRequest>(scenario, 'request.ir.json');

      it('request.wire.json is a valid request', () => {
        expect(schemaErrors(BEDROCK.request, wire)).toEqual([]);
      });

      it('decodeRequest gives request.ir.json', () => {
        expect(bedrockCodec.decodeRequest(structuredClone(wire), originOf(scenario))).toEqual(ir);
      });

      it('encodeRequest(request.ir.json) is valid, warns about nothing, and decodes back to the same IR', () => {
        const { body, warnings } = bedrockCodec.encodeRequest(ir, CLAUDE_LANE);
        expect(schemaErrors(BEDROCK.request, body)).toEqual([]);
        expect(warnings).toEqual([]);
        // Unmapped client fields are the pipeline's to report, never re-encoded; the path names model and stream.
        const back = bedrockCodec.decodeRequest(JSON.parse(JSON.stringify(body)), { pathModel: ir.model, pathStream: ir.stream });
        expect(back).toEqual({ ...ir, unmapped: [] });
      });
    }

    if (hasFile(scenario, 'response.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'response.wire.json');
      const ir = readJson<ChatResponse>(scenario, 'response.ir.json');

      it('response.wire.json is a valid response', () => {
        expect(schemaErrors(BEDROCK.response, wire)).toEqual([]);
      });

      it('decodeResponse gives response.ir.json', () => {
        expect(bedrockCodec.decodeResponse(structuredClone(wire))).toEqual(ir);
      });

      it('encodeResponse(response.ir.json) is valid and decodes back to the same IR', () => {
        const { body, warnings } = bedrockCodec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(BEDROCK.response, body)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(bedrockCodec.decodeResponse(JSON.parse(JSON.stringify(body)))).toEqual(ir);
      });
    }

    if (hasFile(scenario, 'stream.frames.json')) {
      const frames = readJson<FixtureFrame[]>(scenario, 'stream.frames.json');
      if (REGENERATE) writeBytes(scenario, 'stream.wire.bin', framesToBytes(frames));
      const bytes = readBytes(scenario, 'stream.wire.bin');

      it('stream.wire.bin holds exactly the frames of stream.frames.json, CRCs included', () => {
        expect(bytesToFrames(bytes)).toEqual(frames);
        expect(bytes.equals(framesToBytes(frames))).toBe(true);
      });

      it('every frame is a valid stream event', () => {
        for (const frame of frames) expect(schemaErrors(BEDROCK.streamEvent, asStreamEvent(frame)), JSON.stringify(frame)).toEqual([]);
      });

      it('the stream decoder gives stream.ir.json', () => {
        expect(decodeStream([bytes])).toEqual(readJson(scenario, 'stream.ir.json'));
      });

      it('the stream encoder output for stream.ir.json is valid and decodes back to the same events', () => {
        const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
        const encoded = encodeStream(events);
        expect(streamProblems(encoded)).toEqual([]);
        expect(survivingStream(decodeStream([encoded]))).toEqual(survivingStream(events));
      });
    }
  });
}
