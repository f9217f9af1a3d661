// Every golden IR of the other protocols must encode for Gemini: a request body valid against the
// Gemini request schema (or a 400 naming the field Gemini cannot express), a valid response and a
// valid stream in both framings, with a warning for whatever could not be carried.
import { describe, expect, it } from 'vitest';
import { GatewayFailure, type ChatRequest, type ChatResponse, type StreamEvent } from '../../../server/ir/index.ts';
import { SCHEMAS, codec, hasFile, readJson, scenarios, schemaErrors, streamProblems } from './support.ts';

const LANE = { model: 'gemini-2.5-flash', defaultMaxTokens: 2048 };

/** Request IRs Gemini refuses, and the field the 400 names: none of the fixtures (see the end of this file). */
const REFUSED: Record<string, string> = {};

/**
 * The warnings each foreign request must produce ([path, kind]); unlisted fixtures produce none.
 * Reviewed: image detail, schema names, author names, end-user ids, strict flags and cache hints
 * have no Gemini field; mid-conversation system turns move to systemInstruction; Anthropic's
 * signed and redacted thinking cannot be replayed to Gemini.
 */
const EXPECTED_WARNINGS: Record<string, readonly [string, string][]> = {
  'openai/images': [['messages[0].content[1].detail', 'dropped']],
  'openai/refusal': [['response_format.json_schema.name', 'dropped']],
  'openai/system-and-multi-turn': [
    ['messages[4]', 'reshaped'],
    ['messages[5].name', 'dropped'],
    ['user', 'dropped'],
  ],
  'openai/tool-call-parallel': [['tools[0].strict', 'dropped']],
  'anthropic/system-and-multi-turn': [
    ['messages[0].content[0].cache_control', 'dropped'],
    ['messages[3]', 'reshaped'],
    ['messages[4].content[0].cache_control', 'dropped'],
  ],
  'anthropic/text-basic': [['user', 'dropped']],
  'anthropic/thinking-with-signature': [
    ['messages[1].content[0]', 'dropped'],
    ['messages[1].content[1]', 'dropped'],
  ],
  'anthropic/tool-call-parallel': [['tools[1].cache_control', 'dropped']],
  'anthropic/usage-cached': [['messages[0].content[0].cache_control', 'dropped']],
};

/** Response and stream warnings: Anthropic's thinking signatures and redacted thinking. */
const EXPECTED_RESPONSE_WARNINGS: Record<string, readonly string[]> = {
  'anthropic/thinking-with-signature': ['content[0].signature', 'content[1].redacted'],
  'anthropic/usage-cached': ['content[0].signature'],
};
const EXPECTED_STREAM_WARNINGS: Record<string, readonly string[]> = {
  'anthropic/thinking-with-signature': ['content[0].signature', 'content[1]'],
  'anthropic/usage-cached': ['content[0].signature'],
};

for (const protocol of ['openai', 'anthropic'] as const) {
  for (const scenario of scenarios(protocol)) {
    const id = `${protocol}/${scenario.name}`;
    describe(id, () => {
      if (hasFile(scenario, 'request.ir.json')) {
        it('request.ir.json encodes to a valid Gemini request (or a 400 naming the field)', () => {
          const ir = readJson<ChatRequest>(scenario, 'request.ir.json');
          let encoded: ReturnType<typeof codec.encodeRequest>;
          try {
            encoded = codec.encodeRequest(ir, LANE);
          } catch (e) {
            expect(e).toBeInstanceOf(GatewayFailure);
            const error = (e as GatewayFailure).error;
            expect({ status: error.status, param: error.param }).toEqual({ status: 400, param: REFUSED[id] });
            return;
          }
          expect(REFUSED[id], 'expected a refusal').toBeUndefined();
          expect(schemaErrors(SCHEMAS.request, encoded.body)).toEqual([]);
          expect(encoded.body).not.toHaveProperty('model');
          expect(encoded.warnings.map((w) => [w.path, w.kind])).toEqual(EXPECTED_WARNINGS[id] ?? []);
          // The body means the same conversation: decoding it gives the same number of turns' worth of blocks.
          const again = codec.decodeRequest(encoded.body, { pathModel: LANE.model });
          const blocks = (r: ChatRequest) => r.messages.flatMap((m) => m.content.map((b) => b.type)).filter((t) => t !== 'reasoning');
          expect(blocks(again)).toEqual(blocks(ir));
        });
      }
      if (hasFile(scenario, 'response.ir.json')) {
        it('response.ir.json encodes to a valid Gemini response', () => {
          const { body, warnings } = codec.encodeResponse(readJson<ChatResponse>(scenario, 'response.ir.json'), { streamUsage: false });
          expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
          expect(warnings.map((w) => w.path)).toEqual(EXPECTED_RESPONSE_WARNINGS[id] ?? []);
        });
      }
      if (hasFile(scenario, 'stream.ir.json')) {
        for (const jsonArrayStream of [false, true]) {
          it(`stream.ir.json encodes to a valid Gemini ${jsonArrayStream ? 'JSON array' : 'SSE'} stream`, () => {
            const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream });
            const text = readJson<StreamEvent[]>(scenario, 'stream.ir.json')
              .map((e) => encoder.encode(e))
              .join('');
            expect(streamProblems(text, jsonArrayStream ? 'array' : 'sse')).toEqual([]);
            expect(encoder.warnings.map((w) => w.path)).toEqual(EXPECTED_STREAM_WARNINGS[id] ?? []);
          });
        }
      }
    });
  }
}

describe('request IRs Gemini cannot express', () => {
  const base: ChatRequest = {
    model: 'm',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    stream: false,
    source: 'openai',
    unmapped: [],
  };

  it('a tool result whose call is not in the conversation is a 400 naming its callId', () => {
    const request: ChatRequest = {
      ...base,
      messages: [...base.messages, { role: 'tool', content: [{ type: 'tool_result', callId: 'call_missing', content: [], isError: false }] }],
    };
    expect(() => codec.encodeRequest(request, LANE)).toThrow(GatewayFailure);
    try {
      codec.encodeRequest(request, LANE);
    } catch (e) {
      expect((e as GatewayFailure).error).toMatchObject({ status: 400, param: 'messages[1].content[0].callId' });
    }
  });

  it('tool-call arguments that are not a JSON object are a 400 naming them', () => {
    const request: ChatRequest = { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '[1,2]' }] }] };
    try {
      codec.encodeRequest(request, LANE);
      expect.unreachable();
    } catch (e) {
      expect((e as GatewayFailure).error).toMatchObject({ status: 400, param: 'messages[0].content[0].arguments' });
    }
  });

  it('a system prompt with an image is a 400, and a request of system messages only is a 400', () => {
    const image = { type: 'image' as const, source: { kind: 'url' as const, url: 'https://example.com/a.png' } };
    expect(() => codec.encodeRequest({ ...base, messages: [{ role: 'system', content: [image] }, ...base.messages] }, LANE)).toThrow(
      /messages\[0\]\.content\[0\]/,
    );
    expect(() => codec.encodeRequest({ ...base, messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }] }, LANE)).toThrow(/messages/);
  });
});
