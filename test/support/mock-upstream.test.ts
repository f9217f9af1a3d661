// The mock upstream is only useful if it speaks the real wire formats, so these tests point the
// official SDKs at it and assert what they parse, not what the mock thinks it sent.
import Anthropic from '@anthropic-ai/sdk';
import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anthropicErrorBody, anthropicMessage, anthropicStreamErrorEvent, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { type DemoUpstream, startDemoUpstream } from '../../server/demo/demo-upstream.ts';
import { openaiChatCompletion, openaiChatStreamEvents, openaiErrorBody, openaiStreamErrorEvent } from '../../server/demo/openai-replies.ts';
import { splitIntoPieces } from '../../server/demo/split-pieces.ts';
import { type MockUpstream, startMockUpstream } from './mock-upstream.ts';

function openaiClient(baseUrl: string): OpenAI {
  return new OpenAI({ apiKey: 'k', baseURL: baseUrl + '/v1', maxRetries: 0 });
}

function anthropicClient(baseUrl: string): Anthropic {
  return new Anthropic({ apiKey: 'k', baseURL: baseUrl, maxRetries: 0 });
}

/** Function tool calls as plain data, so assertions need no union narrowing. */
function functionCalls(message: OpenAI.Chat.ChatCompletionMessage): { id: string; name: string; arguments: string }[] {
  return (message.tool_calls ?? []).map((call) => {
    if (call.type !== 'function') throw new Error(`unexpected tool call type ${call.type}`);
    return { id: call.id, name: call.function.name, arguments: call.function.arguments };
  });
}

const weatherTool: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('reply builders', () => {
  it('split text into near-equal pieces without cutting surrogate pairs', () => {
    expect(splitIntoPieces('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(splitIntoPieces('ab', 5)).toEqual(['a', 'b']);
    expect(splitIntoPieces('', 3)).toEqual([]);
    expect(splitIntoPieces('😀😀😀', 2).join('')).toBe('😀😀😀');
    expect(splitIntoPieces('😀😀😀', 2)).toEqual(['😀😀', '😀']);
  });

  it('frame OpenAI stream events as data lines, with usage:null only when usage is requested', () => {
    const spec = { id: 'chatcmpl-1', model: 'm', text: 'hello', created: 7 };
    const withUsage = openaiChatStreamEvents(spec, { includeUsage: true });
    expect(withUsage.at(-1)).toBe('data: [DONE]\n\n');
    const chunks = withUsage.slice(0, -1).map((event) => {
      expect(event).toMatch(/^data: \{.*\}\n\n$/s);
      return JSON.parse(event.slice('data: '.length)) as Record<string, unknown>;
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 0, total_tokens: 0 } });
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.created === 7)).toBe(true);

    const withoutUsage = openaiChatStreamEvents(spec, { includeUsage: false }).slice(0, -1);
    expect(withoutUsage.some((event) => event.includes('"usage"'))).toBe(false);
  });

  it('put content null on a tool-call-only OpenAI message and default finish_reason to tool_calls', () => {
    const completion = openaiChatCompletion({
      id: 'c',
      model: 'm',
      toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }],
    });
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
  });

  it('frame Anthropic stream events with matching event: names and data types', () => {
    const events = anthropicStreamEvents({ id: 'msg_1', model: 'c', text: 'hi' });
    for (const event of events) {
      const match = /^event: (\w+)\ndata: (\{.*\})\n\n$/s.exec(event);
      expect(match).not.toBeNull();
      expect((JSON.parse(match?.[2] ?? '') as { type: string }).type).toBe(match?.[1]);
    }
    expect(events[0]).toContain('"stop_reason":null');
    expect(events[1]).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it('build the documented error bodies', () => {
    expect(openaiErrorBody('slow down', 'requests', 'rate_limit_exceeded')).toEqual({
      error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    expect(anthropicErrorBody('overloaded_error', 'Overloaded')).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(anthropicStreamErrorEvent('overloaded_error', 'Overloaded')).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
  });
});

describe('mock upstream', () => {
  let mock: MockUpstream;
  beforeAll(async () => {
    mock = await startMockUpstream();
  });
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  describe('with the OpenAI SDK', () => {
    it('echoes by default (non-stream) and records the request', async () => {
      const completion = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hello mock' }],
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe('gpt-test');
      expect(completion.choices[0]?.message.content).toBe('Demo reply to: "hello mock"');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 });

      expect(mock.requests).toHaveLength(1);
      const request = mock.requests[0];
      expect(request?.method).toBe('POST');
      expect(request?.path).toBe('/v1/chat/completions');
      expect(request?.headers.authorization).toBe('Bearer k');
      expect(request?.json).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hello mock' }] });
      expect(JSON.parse(request?.rawBody.toString('utf8') ?? '')).toEqual(request?.json);
    });

    it('echoes by default as a stream, with usage when include_usage is set', async () => {
      const stream = openaiClient(mock.url).chat.completions.stream({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'stream me' }],
        stream_options: { include_usage: true },
      });
      const deltas: string[] = [];
      stream.on('content.delta', ({ delta }) => deltas.push(delta));
      const final = await stream.finalChatCompletion();
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Demo reply to: "stream me"');
      expect(final.choices[0]?.message.content).toBe('Demo reply to: "stream me"');
      expect(final.choices[0]?.finish_reason).toBe('stop');
      expect(final.usage?.completion_tokens).toBe(Math.ceil('Demo reply to: "stream me"'.length / 4));
    });

    it('streams without usage chunks when include_usage is not set', async () => {
      const stream = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'no usage' }],
        stream: true,
      });
      const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Demo reply to: "no usage"');
    });

    it('answers with a call to the first tool when the user asks for a tool', async () => {
      const completion = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'Use a tool please' }],
        tools: [weatherTool],
      });
      const message = completion.choices[0]?.message;
      expect(message?.content).toBeNull();
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(functionCalls(message!)).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{}' }]);
    });

    it('parses scripted tool calls and detailed usage (non-stream)', async () => {
      const spec = {
        id: 'chatcmpl-scripted',
        model: 'gpt-scripted',
        text: 'Checking both.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_time', arguments: '{"tz":"CET"}' },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 20, cached_tokens: 40, reasoning_tokens: 5 },
      };
      mock.enqueue({ json: openaiChatCompletion(spec) });
      const completion = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(completion.id).toBe('chatcmpl-scripted');
      expect(completion.choices[0]?.message.content).toBe('Checking both.');
      expect(functionCalls(completion.choices[0]!.message)).toEqual(spec.toolCalls);
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(completion.usage).toMatchObject({
        prompt_tokens: 50,
        completion_tokens: 20,
        total_tokens: 70,
        prompt_tokens_details: { cached_tokens: 40 },
        completion_tokens_details: { reasoning_tokens: 5 },
      });
    });

    it('reassembles scripted streamed tool calls with the strict stream helper', async () => {
      const toolCalls = [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
        { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      ];
      const spec = { id: 'chatcmpl-s', model: 'gpt-scripted', toolCalls, usage: { prompt_tokens: 9, completion_tokens: 4 } };
      mock.enqueue({ events: openaiChatStreamEvents(spec, { includeUsage: true, textPieces: 4 }) });
      const stream = openaiClient(mock.url).chat.completions.stream({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'x' }],
        stream_options: { include_usage: true },
      });
      const final = await stream.finalChatCompletion();
      expect(functionCalls(final.choices[0]!.message)).toEqual(toolCalls);
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
      expect(final.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    });

    it('surfaces a mid-stream error event as APIError', async () => {
      const spec = { id: 'chatcmpl-e', model: 'm', text: 'partial' };
      const events = openaiChatStreamEvents(spec, { includeUsage: false });
      mock.enqueue({ events: [events[0]!, events[1]!, openaiStreamErrorEvent('The server had an error', 'server_error', null)] });
      const stream = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      const read = async () => {
        for await (const _chunk of stream) {
          // drain until the error
        }
      };
      await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
    });

    it('maps a scripted 429 error body to RateLimitError', async () => {
      mock.enqueue({ status: 429, json: openaiErrorBody('Rate limit reached', 'requests', 'rate_limit_exceeded') });
      const error = await openaiClient(mock.url)
        .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    });

    it('makes the SDK throw a connection error on fault reset', async () => {
      mock.enqueue({ fault: 'reset' });
      await expect(openaiClient(mock.url).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
        OpenAI.APIConnectionError,
      );
      expect(mock.requests).toHaveLength(1);
    });

    it('cuts a stream mid-way after cutAfter events', async () => {
      const events = openaiChatStreamEvents({ id: 'c', model: 'm', text: 'aaaabbbbccccdddd' }, { includeUsage: false, textPieces: 4 });
      mock.enqueue({ events, cutAfter: 3 });
      const stream = await openaiClient(mock.url).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      const received: string[] = [];
      const read = async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      };
      await expect(read()).rejects.toThrow();
      // role chunk, then two of the four text pieces; the socket dies before the rest.
      expect(received).toEqual(['', 'aaaa', 'bbbb']);
    });
  });

  describe('with the Anthropic SDK', () => {
    it('echoes by default (non-stream) and records Anthropic headers', async () => {
      const message = await anthropicClient(mock.url).messages.create({
        model: 'claude-test',
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello claude' }],
      });
      expect(message.type).toBe('message');
      expect(message.model).toBe('claude-test');
      expect(message.content).toEqual([{ type: 'text', text: 'Demo reply to: "hello claude"' }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.stop_sequence).toBeNull();
      expect(message.usage).toMatchObject({ input_tokens: Math.ceil('Be brief.\nhello claude'.length / 4), output_tokens: 8 });

      const request = mock.requests[0];
      expect(request?.path).toBe('/v1/messages');
      expect(request?.headers['anthropic-version']).toEqual(expect.any(String));
      expect(request?.json).toMatchObject({ model: 'claude-test', max_tokens: 100 });
    });

    it('echoes by default as a stream', async () => {
      const stream = anthropicClient(mock.url).messages.stream({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'stream please' }] }],
      });
      const deltas: string[] = [];
      stream.on('text', (delta) => deltas.push(delta));
      const final = await stream.finalMessage();
      expect(deltas.join('')).toBe('Demo reply to: "stream please"');
      expect(deltas.length).toBeGreaterThan(1);
      expect(final.stop_reason).toBe('end_turn');
      expect(final.usage.output_tokens).toBe(Math.ceil('Demo reply to: "stream please"'.length / 4));
      expect(mock.requests[0]?.json).toMatchObject({ stream: true });
    });

    const scripted = {
      id: 'msg_scripted',
      model: 'claude-scripted',
      thinking: { text: 'The user wants weather; call the tool.', signature: 'sig-Abc123==' },
      text: 'Let me check.',
      toolUses: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2], nested: { ok: true } } }],
      usage: { input_tokens: 30, output_tokens: 25, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    };
    const expectedContent = [
      { type: 'thinking', thinking: scripted.thinking.text, signature: scripted.thinking.signature },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: scripted.toolUses[0]!.input },
    ];

    it('parses scripted thinking, text and tool use (non-stream)', async () => {
      mock.enqueue({ json: anthropicMessage(scripted) });
      const message = await anthropicClient(mock.url).messages.create({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(message.id).toBe('msg_scripted');
      expect(message.content).toMatchObject(expectedContent);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject(scripted.usage);
    });

    it('reassembles scripted streamed thinking with signature, text and tool input', async () => {
      mock.enqueue({ events: anthropicStreamEvents({ ...scripted, stopSequence: null }, { textPieces: 5 }) });
      const stream = anthropicClient(mock.url).messages.stream({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
      });
      const final = await stream.finalMessage();
      expect(final.content).toMatchObject(expectedContent);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.stop_sequence).toBeNull();
      expect(final.usage).toMatchObject({ input_tokens: 30, output_tokens: 25, cache_read_input_tokens: 100 });
    });

    it('reports a scripted stop sequence', async () => {
      mock.enqueue({
        events: anthropicStreamEvents({ id: 'msg_s', model: 'c', text: 'one, two', stopReason: 'stop_sequence', stopSequence: 'three' }),
      });
      const final = await anthropicClient(mock.url)
        .messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'count' }] })
        .finalMessage();
      expect(final.stop_reason).toBe('stop_sequence');
      expect(final.stop_sequence).toBe('three');
    });

    it('surfaces a scripted 529 as OverloadedError', async () => {
      mock.enqueue({ status: 529, json: anthropicErrorBody('overloaded_error', 'Overloaded', 'req_1') });
      const error = await anthropicClient(mock.url)
        .messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.OverloadedError);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });
    });

    it('surfaces a mid-stream error event as APIError', async () => {
      const events = anthropicStreamEvents({ id: 'msg_e', model: 'c', text: 'partial answer' });
      mock.enqueue({ events: [...events.slice(0, 4), anthropicStreamErrorEvent('overloaded_error', 'Overloaded')] });
      const stream = anthropicClient(mock.url).messages.stream({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
    });

    it('makes the SDK throw a connection error on fault reset', async () => {
      mock.enqueue({ fault: 'reset' });
      await expect(
        anthropicClient(mock.url).messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      ).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    });

    it('answers with a tool_use of the first tool when asked for a tool', async () => {
      const message = await anthropicClient(mock.url).messages.create({
        model: 'claude-test',
        max_tokens: 10,
        tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'call the tool' }],
      });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'lookup', input: {} }]);
    });
  });

  describe('scripting and recording', () => {
    it('records raw bytes exactly and json as undefined for non-JSON bodies', async () => {
      const bytes = Buffer.from([0x00, 0xff, 0x7b, 0x0a, 0xc3]);
      mock.enqueue({ raw: 'ok' });
      const response = await fetch(mock.url + '/anything?x=1', { method: 'PUT', body: bytes, headers: { 'x-test': 'yes' } });
      expect(await response.text()).toBe('ok');
      const request = mock.requests[0];
      expect(request?.method).toBe('PUT');
      expect(request?.path).toBe('/anything?x=1');
      expect(request?.headers['x-test']).toBe('yes');
      expect(request?.rawBody.equals(bytes)).toBe(true);
      expect(request?.json).toBeUndefined();
    });

    it('serves scripted replies first-in first-out, then falls back to echo', async () => {
      mock.enqueue({ json: { n: 1 } }, { status: 201, json: { n: 2 } });
      const post = (path: string) => fetch(mock.url + path, { method: 'POST', body: '{"messages":[]}' });
      const first = await post('/v1/chat/completions');
      const second = await post('/v1/chat/completions');
      const third = await post('/v1/chat/completions');
      expect([first.status, await first.json()]).toEqual([200, { n: 1 }]);
      expect([second.status, await second.json()]).toEqual([201, { n: 2 }]);
      expect(third.status).toBe(200);
      expect(await third.json()).toMatchObject({ object: 'chat.completion' });
      expect(mock.requests.map((request) => request.json)).toEqual([{ messages: [] }, { messages: [] }, { messages: [] }]);
    });

    it('lets scripted headers override defaults and reset() forget the queue', async () => {
      mock.enqueue({ headers: { 'Content-Type': 'application/x-ndjson', 'x-request-id': 'req_42' }, events: ['{"a":1}\n'] });
      const response = await fetch(mock.url + '/x', { method: 'POST' });
      expect(response.headers.get('content-type')).toBe('application/x-ndjson');
      expect(response.headers.get('x-request-id')).toBe('req_42');
      expect(await response.text()).toBe('{"a":1}\n');

      mock.enqueue({ status: 500, json: {} });
      mock.reset();
      expect(mock.requests).toHaveLength(0);
      expect((await fetch(mock.url + '/v1/messages', { method: 'POST', body: '{"messages":[]}' })).status).toBe(200);
    });

    it('spaces streamed events by delayMs', async () => {
      mock.enqueue({ events: ['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n'], delayMs: 60 });
      const started = Date.now();
      const response = await fetch(mock.url + '/stream', { method: 'POST' });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(await response.text()).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
      expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    });

    it('answers 404 in the protocol error shape for unknown paths', async () => {
      const openai = await fetch(mock.url + '/v1/nope', { method: 'POST' });
      expect(openai.status).toBe(404);
      expect(await openai.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.any(String) } });
      const anthropic = await fetch(mock.url + '/v1/nope', { method: 'POST', headers: { 'anthropic-version': '2023-06-01' } });
      expect(anthropic.status).toBe(404);
      expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    });
  });

  it('ends hanging requests promptly on close()', async () => {
    const own = await startMockUpstream();
    own.enqueue({ fault: 'hang' });
    const pending = openaiClient(own.url).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const outcome = pending.then(
      () => 'answered',
      (error: unknown) => error,
    );
    while (own.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await own.close();
    expect(await outcome).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('ends delayed streams promptly on close()', async () => {
    const own = await startMockUpstream();
    own.enqueue({ events: ['data: 1\n\n', 'data: 2\n\n'], delayMs: 60_000 });
    const response = await fetch(own.url + '/s', { method: 'POST' });
    const started = Date.now();
    await own.close();
    await expect(response.text()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('demo upstream', () => {
  let demo: DemoUpstream;
  beforeAll(async () => {
    demo = await startDemoUpstream();
  });
  afterAll(() => demo.close());

  it('listens on 127.0.0.1 with an ephemeral port', () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers the OpenAI SDK, non-stream and stream', async () => {
    const client = openaiClient(demo.url);
    const completion = await client.chat.completions.create({
      model: 'demo-gpt',
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'text', text: 'second' },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Demo reply to: "first\nsecond"');
    expect(completion.model).toBe('demo-gpt');

    const final = await client.chat.completions
      .stream({ model: 'demo-gpt', messages: [{ role: 'user', content: 'hi demo' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Demo reply to: "hi demo"');
    expect(final.usage?.prompt_tokens).toBe(Math.ceil('hi demo'.length / 4));
  });

  it('answers the OpenAI SDK with a tool call when asked, and with text after the tool result', async () => {
    const client = openaiClient(demo.url);
    const final = await client.chat.completions
      .stream({ model: 'demo-gpt', messages: [{ role: 'user', content: 'what tool can you use?' }], tools: [weatherTool] })
      .finalChatCompletion();
    const [call] = functionCalls(final.choices[0]!.message);
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{}' });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');

    const followUp = await client.chat.completions.create({
      model: 'demo-gpt',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'what tool can you use?' },
        { role: 'assistant', content: null, tool_calls: [{ id: call!.id, type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: call!.id, content: 'sunny' },
      ],
    });
    expect(followUp.choices[0]?.message.content).toBe('Demo reply to: "what tool can you use?"');
  });

  it('answers the Anthropic SDK, non-stream and stream, truncating long prompts', async () => {
    const client = anthropicClient(demo.url);
    const long = 'x'.repeat(500);
    const message = await client.messages.create({ model: 'demo-claude', max_tokens: 50, messages: [{ role: 'user', content: long }] });
    expect(message.content).toEqual([{ type: 'text', text: `Demo reply to: "${'x'.repeat(200)}…"` }]);
    expect(message.usage.input_tokens).toBe(125);

    const stream = client.messages.stream({
      model: 'demo-claude',
      max_tokens: 50,
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'use the tool' }],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toMatchObject([{ type: 'tool_use', name: 'lookup', input: {} }]);
  });

  it('rejects malformed JSON and unknown routes with protocol error bodies', async () => {
    const badOpenAI = await fetch(demo.url + '/v1/chat/completions', { method: 'POST', body: '{nope' });
    expect(badOpenAI.status).toBe(400);
    expect(await badOpenAI.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    const badAnthropic = await fetch(demo.url + '/v1/messages', { method: 'POST', body: '"just a string"' });
    expect(badAnthropic.status).toBe(400);
    expect(await badAnthropic.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });

    const wrongMethod = await fetch(demo.url + '/v1/chat/completions');
    expect(wrongMethod.status).toBe(404);

    await expect(anthropicClient(demo.url).models.list()).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('survives garbage on the socket and keeps serving', async () => {
    await new Promise<void>((resolve) => {
      const url = new URL(demo.url);
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write('NOT HTTP AT ALL\r\n\r\n\x00\x01');
      });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.resume();
    });
    await new Promise<void>((resolve) => {
      const url = new URL(demo.url);
      const socket = connect(Number(url.port), url.hostname, () => {
        // A body shorter than its content-length, then the client vanishes.
        socket.end('POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"mess');
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    const message = await anthropicClient(demo.url).messages.create({
      model: 'demo-claude',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'still there?' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Demo reply to: "still there?"' }]);
  });
});
