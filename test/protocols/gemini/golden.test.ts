// Walks test/fixtures/gemini/<scenario>/: wire -> IR must equal the hand-written *.ir.json, and
// IR -> wire must be schema-valid and decode back to the same IR (minus what the wire cannot hold).
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import {
  SCHEMAS, codec, decodeChunks, encodeEvents, hasFile, originOf, readBytes, readJson, scenarios, schemaErrors, ssePayloads,
  streamProblems, survivingStream,
} from './support.ts';

const REQUIRED = [
  'text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached',
  'thinking-with-signature', 'content-filter', 'prompt-blocked', 'text-unicode', 'stream-error', 'stream-truncated',
];
const LANE = { model: 'gemini-2.5-flash', defaultMaxTokens: 2048 };

describe('gemini fixture inventory', () => {
  it('has every required scenario', () => {
    expect(scenarios().map((s) => s.name)).toEqual(expect.arrayContaining(REQUIRED));
  });
  for (const scenario of scenarios()) {
    it(`${scenario.name} has both halves of every pair`, () => {
      for (const [wire, ir] of [['request.wire.json', 'request.ir.json'], ['response.wire.json', 'response.ir.json'], ['stream.wire.txt', 'stream.ir.json']] as const) {
        expect(hasFile(scenario, ir), `${ir} present iff ${wire} is`).toBe(hasFile(scenario, wire));
      }
      if (hasFile(scenario, 'stream.array.txt')) expect(hasFile(scenario, 'stream.ir.json')).toBe(true);
    });
  }
});

for (const scenario of scenarios()) {
  describe(`gemini/${scenario.name}`, () => {
    if (hasFile(scenario, 'request.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'request.wire.json');

      it('request.wire.json is a valid request', () => {
        expect(schemaErrors(SCHEMAS.request, wire)).toEqual([]);
      });

      it('decodeRequest gives request.ir.json', () => {
        expect(codec.decodeRequest(structuredClone(wire), originOf(scenario))).toEqual(readJson(scenario, 'request.ir.json'));
      });

      it('encodeRequest(request.ir.json) is valid and decodes back to the same IR, less the unmapped fields', () => {
        const ir = readJson<ChatRequest>(scenario, 'request.ir.json');
        // The lane serves the model the request named (its thinking settings depend on the model generation).
        const { body, warnings } = codec.encodeRequest(ir, { ...LANE, model: ir.model });
        expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(body).not.toHaveProperty('model'); // the model goes in the path
        const again = codec.decodeRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, originOf(scenario));
        expect(again).toEqual({ ...ir, unmapped: [] });
      });
    }

    if (hasFile(scenario, 'response.wire.json')) {
      const wire = readJson<Record<string, unknown>>(scenario, 'response.wire.json');

      it('response.wire.json is a valid response', () => {
        expect(schemaErrors(SCHEMAS.response, wire)).toEqual([]);
      });

      it('decodeResponse gives response.ir.json', () => {
        expect(codec.decodeResponse(structuredClone(wire))).toEqual(readJson(scenario, 'response.ir.json'));
      });

      it('encodeResponse(response.ir.json) is valid, warns of nothing and decodes back to the same IR', () => {
        const ir = readJson<ChatResponse>(scenario, 'response.ir.json');
        const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
        expect(warnings).toEqual([]);
        expect(codec.decodeResponse(JSON.parse(JSON.stringify(body)) as Record<string, unknown>)).toEqual(ir);
      });
    }

    for (const [file, framing] of [['stream.wire.txt', 'sse'], ['stream.array.txt', 'array']] as const) {
      if (!hasFile(scenario, file)) continue;
      const bytes = readBytes(scenario, file);

      it(`every chunk of ${file} is a valid stream chunk`, () => {
        expect(streamProblems(bytes.toString('utf8'), framing)).toEqual([]);
      });

      it(`the stream decoder gives stream.ir.json for ${file}`, () => {
        expect(decodeChunks([bytes])).toEqual(readJson(scenario, 'stream.ir.json'));
      });

      it(`the ${framing} stream encoder output for stream.ir.json is valid and decodes back to the same events`, () => {
        const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
        const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: framing === 'array' });
        const text = events.map((e) => encoder.encode(e)).join('');
        expect(streamProblems(text, framing)).toEqual([]);
        expect(encoder.warnings).toEqual([]);
        expect(survivingStream(decodeChunks([Buffer.from(text)]))).toEqual(survivingStream(events));
      });
    }

    if (hasFile(scenario, 'stream.wire.txt')) {
      it('the SSE fixture uses Gemini\'s CRLF framing', () => {
        const text = readBytes(scenario, 'stream.wire.txt').toString('utf8');
        expect(text.endsWith('\r\n\r\n')).toBe(true);
        expect(text.replaceAll('\r\n', '')).not.toContain('\n');
        expect(ssePayloads(text).length).toBeGreaterThan(0);
        expect(encodeEvents(readJson<StreamEvent[]>(scenario, 'stream.ir.json'))).toMatch(/^data: .*\r\n\r\n$/s);
      });
    }
  });
}
