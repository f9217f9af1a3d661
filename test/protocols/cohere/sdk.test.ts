// The official Cohere SDK (cohere-ai 8.1.0, CohereClientV2) against the mock upstream scripted
// to answer with this codec's encoders: what the SDK parses out of our responses, streams and
// errors, and what our decoder makes of the requests the SDK sends.
import { CohereClientV2, CohereError, type Cohere } from 'cohere-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import { SSE_HEADERS } from '../../../server/framing/sse-format.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.ts';
import { codec, decodeStream, encodeStream, hasFile, readJson, scenariosOf } from './support.ts';

let upstream: MockUpstream;
let client: CohereClientV2;

beforeAll(async () => {
  upstream = await startMockUpstream();
  client = new CohereClientV2({ token: 'k', environment: upstream.url, maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const answerJson = (body: Record<string, unknown>) => upstream.enqueue({ json: body });
const answerStream = (events: readonly StreamEvent[]) => upstream.enqueue({ headers: { ...SSE_HEADERS }, raw: encodeStream(events).text });
const lastRequest = (): RecordedRequest & { json: Record<string, unknown> } => {
  const last = upstream.requests.at(-1);
  if (last === undefined) throw new Error('the SDK sent nothing');
  return last as RecordedRequest & { json: Record<string, unknown> };
};

const USAGE = { inputTokens: 1406, outputTokens: 95, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 0 };

describe('chat (non-streaming)', () => {
  it('parses text, thinking, the tool plan, tool calls, the finish reason and usage from encodeResponse', async () => {
    const ir: ChatResponse = {
      id: 'b9e2f4a6-3c1d-4f8e-a7b5-6d0c2e4f8a1b',
      model: 'command-a-03-2025',
      content: [
        { type: 'reasoning', text: 'Two cities, two calls.', origin: 'cohere' },
        { type: 'text', text: 'I will look up the local time in Paris and in Tokyo.' },
        { type: 'tool_call', id: 'get_local_time_m2k8', name: 'get_local_time', arguments: '{"timezone": "Europe/Paris"}' },
        { type: 'tool_call', id: 'get_local_time_r7t1', name: 'get_local_time', arguments: '{"timezone":"Asia/Tokyo"}' },
      ],
      finish: { reason: 'tool_calls', raw: 'tool_use' },
      usage: USAGE,
    };
    answerJson(codec.encodeResponse(ir, { streamUsage: false }).body);
    const response = await client.chat({ model: 'command-a', messages: [{ role: 'user', content: 'Time in Paris and Tokyo?' }] });
    expect(response.id).toBe(ir.id);
    expect(response.finishReason).toBe('TOOL_CALL');
    expect(response.message.content).toEqual([{ type: 'thinking', thinking: 'Two cities, two calls.' }]);
    expect(response.message.toolPlan).toBe('I will look up the local time in Paris and in Tokyo.');
    expect(response.message.toolCalls).toEqual([
      { id: 'get_local_time_m2k8', type: 'function', function: { name: 'get_local_time', arguments: '{"timezone": "Europe/Paris"}' } },
      { id: 'get_local_time_r7t1', type: 'function', function: { name: 'get_local_time', arguments: '{"timezone":"Asia/Tokyo"}' } },
    ]);
    expect(response.usage).toEqual({
      billedUnits: { inputTokens: 1406, outputTokens: 95 },
      tokens: { inputTokens: 1406, outputTokens: 95 },
      cachedTokens: 1024,
    });
  });

  it('sends a request that decodes to the expected IR (camelCase in the SDK, snake_case on the wire)', async () => {
    answerJson(
      codec.encodeResponse(
        { id: 'r1', model: '', content: [{ type: 'text', text: 'ok' }], finish: { reason: 'stop', raw: 'COMPLETE' }, usage: null },
        { streamUsage: false },
      ).body,
    );
    const messages: Cohere.ChatMessageV2[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather here?' },
          { type: 'image_url', imageUrl: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        toolPlan: 'I will check the weather.',
        toolCalls: [{ id: 'get_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', toolCallId: 'get_weather_1', content: [{ type: 'document', document: { data: { temperature_c: 18 } } }] },
    ];
    const response = await client.chat({
      model: 'command-a',
      messages,
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      strictTools: true,
      toolChoice: 'REQUIRED',
      responseFormat: { type: 'json_object', jsonSchema: { type: 'object' } },
      maxTokens: 300,
      stopSequences: ['END'],
      temperature: 0.4,
      k: 20,
      p: 0.8,
      seed: 5,
    });
    expect(response.message.content).toEqual([{ type: 'text', text: 'ok' }]);

    const sent = lastRequest();
    expect(sent.path).toBe('/v2/chat');
    expect(sent.headers.authorization).toBe('Bearer k');
    expect(codec.decodeRequest(sent.json, {})).toEqual({
      model: 'command-a',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'low' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'I will check the weather.' },
            { type: 'tool_call', id: 'get_weather_1', name: 'get_weather', arguments: '{"city": "Paris"}' },
          ],
        },
        {
          role: 'tool',
          content: [{ type: 'tool_result', callId: 'get_weather_1', content: [{ type: 'text', text: '{"temperature_c":18}' }], isError: false }],
        },
      ],
      stream: false,
      streamUsage: true,
      tools: [
        { name: 'get_weather', description: 'Weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
      ],
      toolChoice: { type: 'required' },
      responseFormat: { type: 'json_schema', schema: { type: 'object' } },
      maxTokens: 300,
      stopSequences: ['END'],
      temperature: 0.4,
      topK: 20,
      topP: 0.8,
      seed: 5,
      source: 'cohere',
      unmapped: [
        {
          path: 'messages[3].content[0].document',
          value: { data: { temperature_c: 18 } },
          disposition: 'warn',
          reason: 'citable document form of a tool result (its data is sent as JSON text)',
        },
      ],
    });
  });

  it("turns encodeError into the SDK's typed error with the status and our message", async () => {
    const envelope = codec.encodeError({ kind: 'rate_limit', status: 429, message: 'rate limit exceeded for this key', retryAfterSeconds: 3 });
    upstream.enqueue({ status: envelope.status, headers: { ...envelope.headers }, raw: envelope.body });
    const error = await client.chat({ model: 'command-a', messages: [{ role: 'user', content: 'x' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CohereError);
    expect(error).toMatchObject({ statusCode: 429, body: { message: 'rate limit exceeded for this key' } });
    expect((error as CohereError).rawResponse?.headers.get('retry-after')).toBe('3');
  });
});

describe('chatStream', () => {
  const STREAM: StreamEvent[] = [
    { type: 'message_start', id: 'f0a1b2c3-d4e5-4f6a-8b7c-9d0e1f2a3b4c', model: 'claude-sonnet-4-5' },
    { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'anthropic' } },
    { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Paris first.' } },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'block_delta', index: 1, delta: { type: 'text', text: 'Checking ' } },
    { type: 'block_delta', index: 1, delta: { type: 'text', text: 'now. 東京 😀' } },
    { type: 'block_stop', index: 1 },
    { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_01', name: 'get_weather' } },
    { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: '{"city": "Pa' } },
    { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: 'ris"}' } },
    { type: 'block_stop', index: 2 },
    { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'toolu_02', name: 'get_weather' } },
    { type: 'block_delta', index: 3, delta: { type: 'tool_arguments', partialJson: '{"city":"Tokyo"}' } },
    { type: 'block_stop', index: 3 },
    { type: 'finish', finish: { reason: 'tool_calls', raw: 'tool_use' } },
    { type: 'usage', usage: USAGE },
    { type: 'message_stop' },
  ];

  async function collect(request: Cohere.V2ChatStreamRequest): Promise<Cohere.V2ChatStreamResponse[]> {
    const events: Cohere.V2ChatStreamResponse[] = [];
    for await (const event of await client.chatStream(request)) events.push(event);
    return events;
  }

  it('parses every event of our stream encoder: thinking, text, tool calls, finish reason and usage', async () => {
    answerStream(STREAM);
    const events = await collect({ model: 'command-a', messages: [{ role: 'user', content: 'Weather?' }] });
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      'content-start',
      'content-delta',
      'content-end',
      'content-start',
      'content-delta',
      'content-delta',
      'content-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'message-end',
    ]);
    const deltas = (kind: 'text' | 'thinking') => events.flatMap((e) => (e.type === 'content-delta' ? [e.delta?.message?.content?.[kind] ?? ''] : [])).join('');
    expect(deltas('thinking')).toBe('Paris first.');
    expect(deltas('text')).toBe('Checking now. 東京 😀');
    const starts = events.flatMap((e) => (e.type === 'tool-call-start' ? [e.delta?.message?.toolCalls] : []));
    expect(starts).toEqual([
      { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { id: 'toolu_02', type: 'function', function: { name: 'get_weather', arguments: '' } },
    ]);
    const args = (index: number) =>
      events.flatMap((e) => (e.type === 'tool-call-delta' && e.index === index ? [e.delta?.message?.toolCalls?.function?.arguments ?? ''] : [])).join('');
    expect([args(0), args(1)]).toEqual(['{"city": "Paris"}', '{"city":"Tokyo"}']);
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.delta).toEqual({
      finishReason: 'TOOL_CALL',
      usage: { billedUnits: { inputTokens: 1406, outputTokens: 95 }, tokens: { inputTokens: 1406, outputTokens: 95 }, cachedTokens: 1024 },
    });
    expect(events[0]).toMatchObject({ type: 'message-start', id: 'f0a1b2c3-d4e5-4f6a-8b7c-9d0e1f2a3b4c', delta: { message: { role: 'assistant' } } });
  });

  it('sends stream: true, and the request decodes to a streaming IR', async () => {
    answerStream(STREAM);
    await collect({ model: 'command-a', messages: [{ role: 'user', content: 'Weather?' }], thinking: { type: 'enabled', tokenBudget: 512 } });
    const sent = lastRequest();
    expect(sent.headers.accept).toBe('text/event-stream');
    expect(codec.decodeRequest(sent.json, {})).toEqual({
      model: 'command-a',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }],
      stream: true,
      streamUsage: true,
      reasoning: { budgetTokens: 512, summary: 'auto' },
      source: 'cohere',
      unmapped: [],
    });
  });

  it('sees an in-stream error as a message-end with finish_reason ERROR and the error text', async () => {
    answerStream([...STREAM.slice(0, 6), { type: 'error', error: { kind: 'overloaded', status: 529, message: 'Overloaded' } }]);
    const events = await collect({ model: 'command-a', messages: [{ role: 'user', content: 'Weather?' }] });
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      'content-start',
      'content-delta',
      'content-end',
      'content-start',
      'content-delta',
      'message-end',
    ]);
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.delta).toEqual({ finishReason: 'ERROR', error: 'Overloaded' });
  });

  it('gets a text that says [DONE] in full: the encoder escapes the bracket the SDK would stop at', async () => {
    const says: StreamEvent[] = [
      { type: 'message_start', id: 'm1', model: '' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Print [DONE] when finished.' } },
      { type: 'block_stop', index: 0 },
      { type: 'message_stop' },
    ];
    answerStream(says);
    const events = await collect({ model: 'command-a', messages: [{ role: 'user', content: 'x' }] });
    expect(events.map((e) => e.type)).toEqual(['message-start', 'content-start', 'content-delta', 'content-end', 'message-end']);
    expect(events[2]).toMatchObject({ delta: { message: { content: { text: 'Print [DONE] when finished.' } } } });
    expect(decodeStream([Buffer.from(encodeStream(says).text)]).filter((e) => e.type === 'block_delta')).toEqual([says[2]]);
  });

  for (const scenario of scenariosOf('cohere').filter((s) => hasFile(s, 'stream.ir.json'))) {
    it(`reads the text of every block of the re-encoded ${scenario.name} fixture, and its end`, async () => {
      const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
      answerStream(events);
      const parsed = await collect({ model: 'command-a', messages: [{ role: 'user', content: 'x' }] });
      const irText = events
        .flatMap((e) => (e.type === 'block_delta' && (e.delta.type === 'text' || e.delta.type === 'reasoning') ? [e.delta.text] : []))
        .join('');
      const sdkText = parsed
        .flatMap((e) => (e.type === 'content-delta' ? [(e.delta?.message?.content?.text ?? '') + (e.delta?.message?.content?.thinking ?? '')] : []))
        .join('');
      expect(sdkText).toBe(irText);
      const end = parsed.at(-1);
      expect(end?.type).toBe('message-end');
      const finish = events.find((e) => e.type === 'finish');
      const expected = events.at(-1)?.type === 'error' ? 'ERROR' : finish?.type === 'finish' ? finish.finish.raw : undefined;
      expect(end?.type === 'message-end' && end.delta?.finishReason).toBe(expected);
    });
  }
});
