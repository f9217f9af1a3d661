// The official OpenAI SDK pointed at the gateway: same-protocol (OpenAI upstream) and across
// protocols (Anthropic upstream), streaming and not. Only the upstream is a mock.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
let client: OpenAI;
const CLIENT_KEY = 'sk-client-placeholder';

beforeAll(async () => {
  h = await startHarness();
  client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const lastRequest = () => h.lastRequest();

describe('OpenAI client -> OpenAI upstream (same protocol)', () => {
  it('answers a chat completion with the upstream model and the operator credential', async () => {
    h.upstream.enqueue({
      json: openaiChatCompletion({
        id: 'chatcmpl-1',
        model: 'gpt-4.1-mini-2025-04-14',
        text: 'Hello!',
        usage: { prompt_tokens: 9, completion_tokens: 2, cached_tokens: 4 },
      }),
    });
    const completion = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Hello!');
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(4);
    const sent = lastRequest();
    expect(sent.path).toBe('/v1/chat/completions');
    expect((sent.json as { model: string }).model).toBe('gpt-4.1-mini');
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_OPENAI_KEY}`);
    expect(JSON.stringify(sent.headers)).not.toContain(CLIENT_KEY);
  });

  it('streams chunks through, usage included when asked for', async () => {
    h.upstream.enqueue({
      events: openaiChatStreamEvents(
        { id: 'chatcmpl-2', model: 'gpt-4.1-mini', text: 'one two three', usage: { prompt_tokens: 5, completion_tokens: 3 } },
        { includeUsage: true, textPieces: 3 },
      ),
    });
    const stream = await client.chat.completions.create({
      model: 'gpt',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('one two three');
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBe(8);
  });
});

describe('OpenAI client -> Anthropic upstream (translated)', () => {
  it('sends an Anthropic request: system hoisted, tools, tool results merged, images, stops, max_tokens', async () => {
    h.upstream.enqueue({
      json: anthropicMessage({ id: 'msg_01', model: 'claude-sonnet-4-5-20250929', text: 'Sunny.', usage: { input_tokens: 20, output_tokens: 3 } }),
    });
    await client.chat.completions.create({
      model: 'claude',
      stop: ['END'],
      temperature: 0.5,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'required',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/sky.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '18C' },
        { role: 'tool', tool_call_id: 'call_b', content: '25C' },
        { role: 'user', content: 'Summarise.' },
      ],
    });
    const sent = lastRequest();
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_ANTHROPIC_KEY);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: 'Be brief.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/sky.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_b', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: [{ type: 'text', text: '18C' }] },
            { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: '25C' }] },
            { type: 'text', text: 'Summarise.' },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      tool_choice: { type: 'any' },
      stop_sequences: ['END'],
      temperature: 0.5,
    });
  });

  it('maps a tool_use answer to tool_calls, with usage counting cached tokens', async () => {
    h.upstream.enqueue({
      json: anthropicMessage({
        id: 'msg_02',
        model: 'claude-sonnet-4-5',
        text: 'Checking.',
        toolUses: [{ id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo', units: 'C' } }],
        usage: { input_tokens: 10, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
      }),
    });
    const completion = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Checking.');
    expect(choice?.message.tool_calls).toEqual([
      { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","units":"C"}' } },
    ]);
    expect(completion.usage).toMatchObject({
      prompt_tokens: 115,
      completion_tokens: 30,
      total_tokens: 145,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 },
    });
    expect(completion.model).toBe('claude-sonnet-4-5');
  });

  it('maps stop reasons: stop_sequence and max_tokens', async () => {
    h.upstream.enqueue(
      { json: anthropicMessage({ id: 'msg_03', model: 'claude-sonnet-4-5', text: 'a', stopReason: 'stop_sequence', stopSequence: 'END' }) },
      { json: anthropicMessage({ id: 'msg_04', model: 'claude-sonnet-4-5', text: 'b', stopReason: 'max_tokens' }) },
    );
    const first = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'x' }] });
    const second = await client.chat.completions.create({ model: 'claude', max_completion_tokens: 1, messages: [{ role: 'user', content: 'y' }] });
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.finish_reason).toBe('length');
    expect((lastRequest().json as { max_tokens: number }).max_tokens).toBe(1);
  });

  it('fills the required max_tokens from the catalog default when neither client nor config sets it', async () => {
    h.upstream.enqueue({ json: anthropicMessage({ id: 'msg_05', model: 'claude-haiku-4-5', text: 'ok' }) });
    await client.chat.completions.create({ model: 'claude-default-tokens', messages: [{ role: 'user', content: 'x' }] });
    const maxTokens = (lastRequest().json as { max_tokens: number }).max_tokens;
    expect(maxTokens).toBeGreaterThan(0);
    expect(maxTokens).not.toBe(2048);
  });

  it('streams text and a tool call translated from Anthropic events, usage on request', async () => {
    h.upstream.enqueue({
      events: anthropicStreamEvents(
        {
          id: 'msg_06',
          model: 'claude-sonnet-4-5',
          text: 'Let me check the weather for you.',
          toolUses: [{ id: 'toolu_02', name: 'get_weather', input: { city: 'Lima' } }],
          usage: { input_tokens: 12, output_tokens: 40, cache_read_input_tokens: 8 },
        },
        { textPieces: 4 },
      ),
    });
    const stream = client.chat.completions.stream({
      model: 'claude',
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
    });
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.message.content).toBe('Let me check the weather for you.');
    expect(choice?.message.tool_calls?.[0]).toMatchObject({ id: 'toolu_02', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } });
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(final.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 8 } });
    expect((lastRequest().json as { stream: boolean }).stream).toBe(true);
  });

  it('sends no usage chunk when the client did not ask for one', async () => {
    h.upstream.enqueue({
      events: anthropicStreamEvents({ id: 'msg_07', model: 'claude-sonnet-4-5', text: 'hi', usage: { input_tokens: 1, output_tokens: 1 } }),
    });
    const stream = await client.chat.completions.create({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'x' }] });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('hi');
  });

  it('turns an Anthropic error event mid-stream (after content) into an error the SDK raises', async () => {
    const events = anthropicStreamEvents({ id: 'msg_08', model: 'claude-sonnet-4-5', text: 'partial answer' }, { textPieces: 2 });
    const cut = events.findIndex((e) => e.startsWith('event: content_block_stop'));
    h.upstream.enqueue({
      events: [...events.slice(0, cut), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'],
    });
    const stream = await client.chat.completions.create({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'x' }] });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    ).rejects.toThrow(/Overloaded/);
    expect(text).toBe('partial answer');
  });

  it('answers with an HTTP error (not a broken stream) when the upstream fails before any content', async () => {
    h.upstream.enqueue({ events: ['event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'] });
    const request = client.chat.completions.create({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'x' }] });
    await expect(request).rejects.toMatchObject({ status: 529 });
  });

  it('ends a cut stream with an error, never a clean finish', async () => {
    const events = anthropicStreamEvents({ id: 'msg_09', model: 'claude-sonnet-4-5', text: 'abcdefgh' }, { textPieces: 4 });
    h.upstream.enqueue({ events, cutAfter: 4 });
    const stream = await client.chat.completions.create({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'x' }] });
    const seen: OpenAI.ChatCompletionChunk[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) seen.push(chunk);
      })(),
    ).rejects.toThrow();
    expect(seen.some((c) => c.choices[0]?.finish_reason)).toBe(false);
  });
});
