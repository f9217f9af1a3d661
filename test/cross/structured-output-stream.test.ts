import { describe, expect, it } from 'vitest';
import type { ChatResponse, ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { upstreamJson, upstreamStream } from '../support/six-lane-harness.ts';
import { useSixLaneHarness } from '../support/six-lane-suite.ts';

const JSON_TEXT = '{"city":"Oslo","temperature_c":-3,"tags":["snow","wind"]}';
const PIECES = ['{"city":"Os', 'lo","temperature_c":', '-3,"tags":["snow",', '"wind"]}'];
const USAGE = { inputTokens: 9, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature_c: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['city', 'temperature_c', 'tags'],
  additionalProperties: false,
};
const RESPONSE_FORMAT = { type: 'json_schema' as const, json_schema: { name: 'weather', strict: true, schema: SCHEMA } };

function streamEvents(): StreamEvent[] {
  return [
    { type: 'message_start', id: 'r1', model: 'upstream' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    ...PIECES.map((text): StreamEvent => ({ type: 'block_delta', index: 0, delta: { type: 'text', text } })),
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: { reason: 'stop', raw: null } },
    { type: 'usage', usage: USAGE },
    { type: 'message_stop' },
  ];
}

const ANSWER: ChatResponse = { id: 'r1', model: 'upstream', content: [{ type: 'text', text: JSON_TEXT }], finish: { reason: 'stop', raw: null }, usage: USAGE };

const lanes = useSixLaneHarness();

const LANES: ProtocolId[] = ['gemini', 'anthropic', 'bedrock', 'cohere', 'responses'];

describe('OpenAI structured output through another protocol', () => {
  it.each(LANES)('to %s, streamed with the stream helper: finalChatCompletion parses the JSON', async (lane) => {
    lanes.harness.upstream.enqueue(upstreamStream(lane, streamEvents()));
    const final = await lanes.openai.chat.completions
      .stream({ model: `m-${lane}`, messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }], response_format: RESPONSE_FORMAT })
      .finalChatCompletion();
    expect(final.choices[0]?.message.parsed).toEqual(JSON.parse(JSON_TEXT));
  });

  it.each(LANES)('to %s, not streamed, with parse(): the JSON parses', async (lane) => {
    lanes.harness.upstream.enqueue(upstreamJson(lane, ANSWER));
    const done = await lanes.openai.chat.completions.parse({
      model: `m-${lane}`,
      messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }],
      response_format: RESPONSE_FORMAT,
    });
    expect(done.choices[0]?.message.parsed).toEqual(JSON.parse(JSON_TEXT));
  });
});

/** A Gemini 3 stream as the API writes it: thought parts, the JSON in pieces, then an empty signed part with the finish. */
function realGeminiStream(): string {
  const chunk = (parts: object[], finish?: string) =>
    `data: ${JSON.stringify({
      candidates: [{ content: { parts, role: 'model' }, ...(finish !== undefined && { finishReason: finish }), index: 0 }],
      usageMetadata: { promptTokenCount: 12, totalTokenCount: 40, thoughtsTokenCount: 20 },
      modelVersion: 'gemini-3-pro-preview',
      responseId: 'resp-gem-1',
    })}\r\n\r\n`;
  return [
    chunk([{ text: '**Reading the schema**\n', thought: true }]),
    chunk([{ text: PIECES[0], thoughtSignature: 'c2lnbmVkLWpzb24=' }]),
    ...PIECES.slice(1, -1).map((text) => chunk([{ text }])),
    chunk([{ text: PIECES.at(-1) }], 'STOP'),
  ].join('');
}

describe('OpenAI structured output from a real-shaped Gemini stream', () => {
  it('the stream helper parses the JSON (thoughts and the signed empty part dropped)', async () => {
    lanes.harness.upstream.enqueue({ headers: { 'content-type': 'text/event-stream' }, events: [realGeminiStream()] });
    const final = await lanes.openai.chat.completions
      .stream({
        model: 'm-gemini',
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }],
        response_format: RESPONSE_FORMAT,
      })
      .finalChatCompletion();
    expect(final.choices[0]?.message.parsed).toEqual(JSON.parse(JSON_TEXT));
  });
});
