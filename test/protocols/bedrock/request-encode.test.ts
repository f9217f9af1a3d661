// Encoding IR requests for a Bedrock lane: the rules the golden round trips do not reach.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ContentBlock, Message } from '../../../server/ir/index.ts';
import type { LaneContext } from '../../../server/protocols/codec.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { failureOf } from '../support/translate.ts';
import { schemaErrors } from '../support/validators.ts';
import { BEDROCK } from './support/validators.ts';

const CLAUDE: LaneContext = { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', defaultMaxTokens: 2048 };
const user = (...content: ContentBlock[]): Message => ({ role: 'user', content });
const hi = user({ type: 'text', text: 'Hi' });
const base: ChatRequest = { model: 'm', messages: [hi], stream: false, source: 'openai', unmapped: [] };
const weather = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const toolHistory: Message[] = [
  user({ type: 'text', text: 'Weather in Paris?' }),
  { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
  { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: '18C' }], isError: false }] },
];

function encode(request: Partial<ChatRequest>, lane = CLAUDE) {
  const encoded = bedrockCodec.encodeRequest({ ...base, ...request }, lane);
  expect(schemaErrors(BEDROCK.request, encoded.body)).toEqual([]);
  return encoded;
}

describe('Bedrock encodeRequest: tool choice none and tool history', () => {
  it('leaves the tools out for "none" when the conversation has no tool calls', () => {
    const { body, warnings } = encode({ tools: [weather], toolChoice: { type: 'none' } });
    expect(body.toolConfig).toBeUndefined();
    expect(warnings).toEqual([expect.objectContaining({ kind: 'reshaped', path: 'tool_choice' })]);
  });

  it('keeps the tools without a choice for "none" when the history has tool blocks, and says the model may still call one', () => {
    const { body, warnings } = encode({ messages: toolHistory, tools: [weather], toolChoice: { type: 'none' } });
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weather.parameters } } }] });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'reshaped', path: 'tool_choice' })]);
  });

  it('declares the tools a history uses when the request defines none', () => {
    const { body, warnings } = encode({ messages: toolHistory });
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object', properties: {} } } } }] });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'reshaped', path: 'tools' })]);
    expect(failureOf(() => encode({ messages: [toolHistory[2] as Message] }))).toMatchObject({ status: 400, param: 'messages' });
  });

  it('maps auto, required and a named tool; the tool turn becomes a user turn merged with the next one', () => {
    expect(encode({ tools: [weather], toolChoice: { type: 'auto' } }).body.toolConfig).toMatchObject({ toolChoice: { auto: {} } });
    expect(encode({ tools: [weather], toolChoice: { type: 'required' } }).body.toolConfig).toMatchObject({ toolChoice: { any: {} } });
    expect(encode({ tools: [weather], toolChoice: { type: 'tool', name: 'get_weather' } }).body.toolConfig).toMatchObject({
      toolChoice: { tool: { name: 'get_weather' } },
    });
    const { body } = encode({ messages: [...toolHistory, user({ type: 'text', text: 'And Rome?' })], tools: [weather] });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: '18C' }] } }, { text: 'And Rome?' }] },
    ]);
  });

  it('drops the one-call-per-turn limit with a warning, and refuses arguments that are not an object', () => {
    expect(encode({ tools: [weather], parallelToolCalls: false }).warnings).toEqual([
      expect.objectContaining({ kind: 'dropped', path: 'parallel_tool_calls' }),
    ]);
    const bad: Message = { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'get_weather', arguments: '[1]' }] };
    expect(failureOf(() => encode({ messages: [hi, bad], tools: [weather] }))).toMatchObject({ status: 400, param: 'messages[1].content[0].arguments' });
  });
});

describe('Bedrock encodeRequest: content', () => {
  it('refuses image URLs (the gateway never fetches them) and media types Bedrock lacks, naming the path', () => {
    expect(failureOf(() => encode({ messages: [user({ type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } })] }))).toMatchObject({
      kind: 'invalid_request',
      status: 400,
      param: 'messages[0].content[0].source.url',
      code: 'unsupported_parameter',
    });
    expect(failureOf(() => encode({ messages: [user({ type: 'image', source: { kind: 'base64', mediaType: 'image/tiff', data: 'AAAA' } })] }))).toMatchObject({
      status: 400,
      param: 'messages[0].content[0].source.media_type',
    });
  });

  it('sends base64 images as bytes with their format and drops the detail level with a warning', () => {
    const { body, warnings } = encode({
      messages: [user({ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, detail: 'high' })],
    });
    expect(body.messages).toEqual([{ role: 'user', content: [{ image: { format: 'jpeg', source: { bytes: '/9j/4AAQ' } } }] }]);
    expect(warnings).toEqual([expect.objectContaining({ kind: 'dropped', path: 'messages[0].content[0].detail' })]);
  });

  it('turns cache hints into cache points after text, tools and a tool result ending in text', () => {
    const hint = { type: 'ephemeral', ttl: '1h' };
    const { body, warnings } = encode({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Policy', cacheControl: { type: 'ephemeral' } }] },
        toolHistory[0] as Message,
        toolHistory[1] as Message,
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              callId: 'call_1',
              content: [
                { type: 'text', text: 'a', cacheControl: hint },
                { type: 'text', text: 'b', cacheControl: hint },
              ],
              isError: true,
            },
          ],
        },
      ],
      tools: [{ ...weather, cacheControl: { type: 'ephemeral', ttl: '2h' } }],
    });
    expect(body.system).toEqual([{ text: 'Policy' }, { cachePoint: { type: 'default' } }]);
    expect((body.messages as { content: unknown[] }[])[2]?.content).toEqual([
      { toolResult: { toolUseId: 'call_1', content: [{ text: 'a' }, { text: 'b' }], status: 'error' } },
      { cachePoint: { type: 'default', ttl: '1h' } },
    ]);
    expect((body.toolConfig as { tools: unknown[] }).tools[1]).toEqual({ cachePoint: { type: 'default' } });
    expect(warnings.map((w) => `${w.kind} ${w.path}`)).toEqual([
      'dropped messages[3].content[0].content[0].cache_control',
      'dropped tools[0].cache_control.ttl',
    ]);
  });

  it('replays reasoning only when Bedrock issued it', () => {
    const reasoning: ContentBlock[] = [
      { type: 'reasoning', text: 'mine', signature: 'sig', origin: 'bedrock' },
      { type: 'reasoning', text: '', redacted: 'ZW5j', origin: 'bedrock' },
      { type: 'reasoning', text: 'theirs', signature: 'sig', origin: 'anthropic' },
      { type: 'reasoning', text: 'unsigned' },
      { type: 'text', text: 'Answer' },
    ];
    const { body, warnings } = encode({ messages: [hi, { role: 'assistant', content: reasoning }] });
    expect((body.messages as { content: unknown[] }[])[1]?.content).toEqual([
      { reasoningContent: { reasoningText: { text: 'mine', signature: 'sig' } } },
      { reasoningContent: { redactedContent: 'ZW5j' } },
      { text: 'Answer' },
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['messages[1].content[2]', 'messages[1].content[3]']);
  });

  it('hoists system and developer messages, saying so when one was mid-conversation, and refuses non-text in them', () => {
    const { body, warnings } = encode({
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'A' }] },
        hi,
        { role: 'system', content: [{ type: 'text', text: 'B' }] },
        { ...hi, name: 'dana' },
      ],
    });
    expect(body.system).toEqual([{ text: 'A' }, { text: 'B' }]);
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'Hi' }, { text: 'Hi' }] }]);
    expect(warnings.map((w) => `${w.kind} ${w.path}`)).toEqual(['reshaped messages[2]', 'dropped messages[3].name']);
    expect(
      failureOf(() =>
        encode({ messages: [{ role: 'system', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA' } }] }, hi] }),
      ),
    ).toMatchObject({ status: 400, param: 'messages[0].content[0]' });
  });
});

describe('Bedrock encodeRequest: settings', () => {
  it('puts sampling settings in inferenceConfig and leaves maxTokens to the model when unset', () => {
    const { body } = encode({ maxTokens: 10, temperature: 0.5, topP: 0.8, stopSequences: ['END'] });
    expect(body.inferenceConfig).toEqual({ maxTokens: 10, temperature: 0.5, topP: 0.8, stopSequences: ['END'] });
    expect(encode({}).body.inferenceConfig).toBeUndefined();
    expect(encode({}).body).not.toHaveProperty('modelId');
  });

  it('sends top-k the way the lane model family reads it, and drops it for others', () => {
    expect(encode({ topK: 5 }).body.additionalModelRequestFields).toEqual({ top_k: 5 });
    expect(encode({ topK: 5 }, { model: 'us.amazon.nova-pro-v1:0', defaultMaxTokens: 1 }).body.additionalModelRequestFields).toEqual({
      inferenceConfig: { topK: 5 },
    });
    const llama = encode({ topK: 5 }, { model: 'meta.llama3-70b-instruct-v1:0', defaultMaxTokens: 1 });
    expect(llama.body.additionalModelRequestFields).toBeUndefined();
    expect(llama.warnings).toEqual([expect.objectContaining({ kind: 'dropped', path: 'top_k' })]);
  });

  it('sends a JSON schema as text, refuses schemaless JSON mode, and drops the end-user id with a warning', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(encode({ responseFormat: { type: 'json_schema', schema, name: 'out', strict: true } }).body.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'out' } } },
    });
    expect(failureOf(() => encode({ responseFormat: { type: 'json_object' } }))).toMatchObject({ status: 400, param: 'response_format' });
    expect(encode({ responseFormat: { type: 'text' } }).body.outputConfig).toBeUndefined();
    expect(encode({ user: 'u-1' }).warnings).toEqual([expect.objectContaining({ kind: 'dropped', path: 'user' })]);
  });

  it('names the model and the operation in the path, percent-encoding the model id', () => {
    expect(bedrockCodec.upstreamPath('us.anthropic.claude-sonnet-4-5-20250929-v1:0', false)).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    expect(bedrockCodec.upstreamPath('arn:aws:bedrock:us-east-1:123456789012:inference-profile/x', true)).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx/converse-stream',
    );
  });
});
