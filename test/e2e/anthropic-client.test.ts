// The official Anthropic SDKs (1.x: Bearer + 2026-10-21; 0.137: x-api-key + 2023-06-01) pointed at
// the gateway: same-protocol and across protocols (OpenAI upstream), streaming and not.
import Anthropic from '@anthropic-ai/sdk';
import LegacyAnthropic from 'anthropic-sdk-legacy';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
let client: Anthropic;
let legacy: LegacyAnthropic;
const CLIENT_KEY = 'sk-ant-client-placeholder';

beforeAll(async () => {
  h = await startHarness();
  client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: h.url, maxRetries: 0 });
  legacy = new LegacyAnthropic({ apiKey: CLIENT_KEY, baseURL: h.url, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const lastRequest = () => h.lastRequest();

describe('Anthropic client -> Anthropic upstream (same protocol)', () => {
  it.each([
    ['SDK 1.x', () => client, '2026-10-21'],
    ['SDK 0.137', () => legacy as unknown as Anthropic, '2023-06-01'],
  ])("%s: forwards the client's API version with the operator credential", async (_name, sdk, version) => {
    h.upstream.enqueue({ json: anthropicMessage({ id: 'msg_01', model: 'claude-sonnet-4-5', text: 'Bonjour', usage: { input_tokens: 4, output_tokens: 2 } }) });
    const message = await sdk().messages.create({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'Salut' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Bonjour' }]);
    const sent = lastRequest();
    expect(sent.headers['anthropic-version']).toBe(version);
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_ANTHROPIC_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(CLIENT_KEY);
    expect((sent.json as { model: string }).model).toBe('claude-sonnet-4-5');
  });

  it('streams thinking, text and tool use through untouched', async () => {
    h.upstream.enqueue({
      events: anthropicStreamEvents({
        id: 'msg_02',
        model: 'claude-sonnet-4-5',
        thinking: { text: 'Consider.', signature: 'sig-abc' },
        text: 'Calling.',
        toolUses: [{ id: 'toolu_01', name: 'lookup', input: { q: 'x' } }],
        usage: { input_tokens: 5, output_tokens: 9 },
      }),
    });
    const final = await client.messages.stream({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
    expect(final.content).toEqual(
      [
        { type: 'thinking', thinking: 'Consider.', signature: 'sig-abc' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'x' } },
      ].map((b) => expect.objectContaining(b)),
    );
    expect(final.stop_reason).toBe('tool_use');
  });

  it('accepts the model in the path (/{model}/v1/messages)', async () => {
    h.upstream.enqueue({ json: anthropicMessage({ id: 'msg_03', model: 'claude-sonnet-4-5', text: 'ok' }) });
    const pathClient = new Anthropic({ apiKey: CLIENT_KEY, baseURL: `${h.url}/claude`, maxRetries: 0 });
    await pathClient.messages.create({ model: 'ignored-body-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect((lastRequest().json as { model: string }).model).toBe('claude-sonnet-4-5');
  });
});

describe('Anthropic client -> OpenAI upstream (translated)', () => {
  it('sends an OpenAI request: system, tool use history, error results, tools, tool choice', async () => {
    h.upstream.enqueue({ json: openaiChatCompletion({ id: 'chatcmpl-1', model: 'gpt-4.1-mini', text: 'Done.' }) });
    await client.messages.create({
      model: 'gpt',
      max_tokens: 300,
      stop_sequences: ['###'],
      system: [{ type: 'text', text: 'You are terse.' }],
      tools: [{ name: 'search', description: 'Search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      tool_choice: { type: 'tool', name: 'search', disable_parallel_tool_use: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Find cats' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Searching.' },
            { type: 'tool_use', id: 'toolu_9', name: 'search', input: { q: 'cats' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_9', content: 'no results' },
            { type: 'text', text: 'Try again' },
          ],
        },
      ],
    });
    const sent = lastRequest();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_OPENAI_KEY}`);
    expect(sent.json).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Find cats' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Searching.',
          tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'search', arguments: '{"q":"cats"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_9', content: 'no results' },
        { role: 'user', content: 'Try again' },
      ],
      tools: [{ type: 'function', function: { name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
      tool_choice: { type: 'function', function: { name: 'search' } },
      parallel_tool_calls: false,
      max_completion_tokens: 300,
      stop: ['###'],
    });
  });

  it('maps tool_calls to tool_use blocks and OpenAI usage to Anthropic usage', async () => {
    h.upstream.enqueue({
      json: openaiChatCompletion({
        id: 'chatcmpl-2',
        model: 'gpt-4.1-mini',
        toolCalls: [
          { id: 'call_1', name: 'search', arguments: '{"q":"dogs"}' },
          { id: 'call_2', name: 'search', arguments: '{"q":"owls"}' },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 20, cached_tokens: 100 },
      }),
    });
    const message = await client.messages.create({ model: 'gpt', max_tokens: 50, messages: [{ role: 'user', content: 'search dogs and owls' }] });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'search', input: { q: 'dogs' } },
      { type: 'tool_use', id: 'call_2', name: 'search', input: { q: 'owls' } },
    ]);
    // Anthropic's input_tokens excludes cache reads: 120 prompt tokens of which 100 cached.
    expect(message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 20 });
  });

  it('reports what it dropped in x-gateway-warnings, and counts it', async () => {
    const droppedBefore = h.gateway.translations.snapshot().warnings.dropped ?? 0;
    const hopsBefore = h.gateway.translations.snapshot().hops['anthropic->openai'] ?? 0;
    h.upstream.enqueue({ json: openaiChatCompletion({ id: 'chatcmpl-3', model: 'gpt-4.1-mini', text: 'ok' }) });
    const { response } = await client.messages
      .create({
        model: 'gpt',
        max_tokens: 50,
        service_tier: 'auto',
        messages: [{ role: 'user', content: 'hi' }],
      } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    expect(response.headers.get('x-gateway-warnings')).toContain('dropped=service_tier');
    expect(h.gateway.translations.snapshot().warnings.dropped).toBe(droppedBefore + 1);
    expect(h.gateway.translations.snapshot().hops['anthropic->openai']).toBe(hopsBefore + 1);
    expect(JSON.stringify(lastRequest().json)).not.toContain('service_tier');
  });

  it('streams an OpenAI answer as Anthropic events: text, parallel tool calls, usage, stop reason', async () => {
    h.upstream.enqueue({
      events: openaiChatStreamEvents(
        {
          id: 'chatcmpl-4',
          model: 'gpt-4.1-mini',
          text: 'Two lookups.',
          toolCalls: [
            { id: 'call_a', name: 'search', arguments: '{"q":"a b c"}' },
            { id: 'call_b', name: 'search', arguments: '{"q":"d"}' },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 12, cached_tokens: 10 },
        },
        { includeUsage: true, textPieces: 3 },
      ),
    });
    const stream = client.messages.stream({ model: 'gpt', max_tokens: 80, messages: [{ role: 'user', content: 'look up' }] });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual(
      [
        { type: 'text', text: 'Two lookups.' },
        { type: 'tool_use', id: 'call_a', name: 'search', input: { q: 'a b c' } },
        { type: 'tool_use', id: 'call_b', name: 'search', input: { q: 'd' } },
      ].map((b) => expect.objectContaining(b)),
    );
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 10, output_tokens: 12 });
    expect(events[0]).toBe('message_start');
    expect(events[events.length - 1]).toBe('message_stop');
    expect((lastRequest().json as { stream_options: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('relays an upstream 429 as an Anthropic rate_limit_error with its Retry-After', async () => {
    h.upstream.enqueue({
      status: 429,
      headers: { 'retry-after': '7' },
      json: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    const error = await client.messages.create({ model: 'gpt', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toBe('7');
    expect((error as { error: unknown }).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached' } });
  });

  it('treats OpenAI insufficient_quota as billing (per the catalog error_map), keeping the status', async () => {
    h.upstream.enqueue({
      status: 429,
      json: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
    });
    const error = await client.messages.create({ model: 'gpt', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((error as { status: number }).status).toBe(429);
    expect((error as { error: unknown }).error).toMatchObject({ error: { type: 'billing_error' } });
  });
});
