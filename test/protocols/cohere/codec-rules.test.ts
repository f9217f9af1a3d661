// The Cohere codec's own rules, one by one: how requests, responses and errors map where the
// golden fixtures do not reach (tool plan, tool_choice, strict tools, sampling ranges, reasoning
// from other protocols, error statuses).
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, ContentBlock, Message } from '../../../server/ir/index.ts';
import { failureOf } from '../support/translate.ts';
import { schemaErrors } from '../support/validators.ts';
import { COHERE_LANE, SCHEMAS, codec, decodeStream } from './support.ts';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const irRequest = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'command-a',
  messages: [user('Hi')],
  stream: false,
  source: 'openai',
  unmapped: [],
  ...extra,
});
const decode = (body: Record<string, unknown>) => {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), {});
};
const encode = (request: ChatRequest) => {
  const encoded = codec.encodeRequest(request, COHERE_LANE);
  expect(schemaErrors(SCHEMAS.request, encoded.body)).toEqual([]);
  return encoded;
};
const call = (id: string, args = '{}'): ContentBlock => ({ type: 'tool_call', id, name: 'lookup', arguments: args });

describe('request decoding', () => {
  it('reads k and p as top-k and top-p; k = 0 (top-k off) is no top-k at all', () => {
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], k: 0, p: 0.75 })).toMatchObject({ topP: 0.75 });
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], k: 0 }).topK).toBeUndefined();
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], k: 50 }).topK).toBe(50);
  });

  it.each([
    [{ type: 'text' }, { type: 'text' }],
    [{ type: 'json_object' }, { type: 'json_object' }],
    [
      { type: 'json_object', json_schema: { type: 'object', required: ['a'] } },
      { type: 'json_schema', schema: { type: 'object', required: ['a'] } },
    ],
  ])('response_format %j is %j', (format, expected) => {
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: format }).responseFormat).toEqual(expected);
  });

  it('tool_choice NONE and REQUIRED; absent means the model decides', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(decode({ ...base, tool_choice: 'NONE' }).toolChoice).toEqual({ type: 'none' });
    expect(decode({ ...base, tool_choice: 'REQUIRED' }).toolChoice).toEqual({ type: 'required' });
    expect(decode(base).toolChoice).toBeUndefined();
  });

  it('an assistant turn is read as thinking, tool plan, tool calls, then text; re-encoded it has the same shape', () => {
    const assistant = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Need data.' },
        { type: 'text', text: 'Looking it up.' },
      ],
      tool_plan: 'I will call lookup.',
      tool_calls: [{ id: 'lookup_1', type: 'function', function: { name: 'lookup', arguments: '{"q": 1}' } }],
    };
    const ir = decode({ model: 'm', messages: [{ role: 'user', content: 'x' }, assistant] });
    expect(ir.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Need data.', origin: 'cohere' },
        { type: 'text', text: 'I will call lookup.' },
        { type: 'tool_call', id: 'lookup_1', name: 'lookup', arguments: '{"q": 1}' },
        { type: 'text', text: 'Looking it up.' },
      ],
    });
    expect((encode(ir).body.messages as unknown[])[1]).toEqual(assistant);
  });

  it.each([
    [{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] }, 'messages[0].tool_calls[0].function.name'],
    [{ role: 'user', content: [{ type: 'thinking', thinking: 'hm' }] }, 'messages[0].content[0].type'],
    [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, 'messages[0].content[0].type'],
    [{ role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, 'messages[0].content[0].type'],
  ])('refuses %j with a 400 naming %s', (message, param) => {
    expect(failureOf(() => decode({ model: 'm', messages: [message] }))).toMatchObject({ status: 400, param });
  });

  it('refuses a tool of an unknown type and a response format of an unknown type', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(failureOf(() => decode({ ...base, tools: [{ type: 'web_search' }] }))).toMatchObject({ status: 400, param: 'tools[0].type' });
    expect(failureOf(() => decode({ ...base, response_format: { type: 'grammar' } }))).toMatchObject({ status: 400, param: 'response_format.type' });
  });
});

describe('request encoding', () => {
  it('cannot name a tool: a named tool_choice is a 400 naming tool_choice', () => {
    const request = irRequest({ tools: [{ name: 'lookup', parameters: { type: 'object' } }], toolChoice: { type: 'tool', name: 'lookup' } });
    expect(failureOf(() => codec.encodeRequest(request, COHERE_LANE))).toMatchObject({ status: 400, param: 'tool_choice', code: 'unsupported_parameter' });
  });

  it('writes REQUIRED and NONE, and leaves auto out', () => {
    expect(encode(irRequest({ toolChoice: { type: 'required' } })).body.tool_choice).toBe('REQUIRED');
    expect(encode(irRequest({ toolChoice: { type: 'none' } })).body.tool_choice).toBe('NONE');
    expect(encode(irRequest({ toolChoice: { type: 'auto' } })).body).not.toHaveProperty('tool_choice');
  });

  it('sets strict_tools only when every tool is strict, and reports a partial strictness it cannot express', () => {
    const tool = (name: string, strict?: boolean) => ({ name, parameters: { type: 'object' }, ...(strict !== undefined && { strict }) });
    expect(encode(irRequest({ tools: [tool('a', true), tool('b', true)] })).body.strict_tools).toBe(true);
    const mixed = encode(irRequest({ tools: [tool('a', true), tool('b')] }));
    expect(mixed.body).not.toHaveProperty('strict_tools');
    expect(mixed.warnings).toEqual([expect.objectContaining({ kind: 'dropped', path: 'tools[0].strict' })]);
  });

  it('reports what Cohere has no field for: parallel_tool_calls false, the end-user id, author names, cache hints', () => {
    const { warnings } = encode(
      irRequest({
        messages: [{ role: 'user', name: 'ada', content: [{ type: 'text', text: 'Hi', cacheControl: { type: 'ephemeral' } }] }],
        tools: [{ name: 'f', parameters: { type: 'object' }, cacheControl: { type: 'ephemeral' } }],
        parallelToolCalls: false,
        user: 'user-123',
      }),
    );
    expect(warnings.map((w) => [w.kind, w.path])).toEqual([
      ['dropped', 'messages[0].name'],
      ['dropped', 'messages[0].content[0].cache_control'],
      ['dropped', 'tools[0].cache_control'],
      ['dropped', 'parallel_tool_calls'],
      ['dropped', 'user'],
    ]);
  });

  it("keeps p and k inside Cohere's documented ranges, saying so when it moves them", () => {
    const { body, warnings } = encode(irRequest({ topP: 1, topK: 1000 }));
    expect(body).toMatchObject({ p: 0.99, k: 500 });
    expect(warnings.map((w) => [w.kind, w.path])).toEqual([
      ['reshaped', 'top_p'],
      ['reshaped', 'top_k'],
    ]);
    expect(encode(irRequest({ topP: 0.5, topK: 40 }))).toMatchObject({ body: { p: 0.5, k: 40 }, warnings: [] });
  });

  it('writes a JSON schema format as json_object with json_schema, reporting the schema name it cannot carry', () => {
    const { body, warnings } = encode(irRequest({ responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } }));
    expect(body.response_format).toEqual({ type: 'json_object', json_schema: { type: 'object' } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'dropped', path: 'response_format.json_schema.name' })]);
  });

  it('keeps system and developer messages where they are, as system messages', () => {
    const { body, warnings } = encode(
      irRequest({
        messages: [
          { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
          user('Hi'),
          {
            role: 'system',
            content: [
              { type: 'text', text: 'Now in French.' },
              { type: 'text', text: 'Short.' },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Now in French.' },
          { type: 'text', text: 'Short.' },
        ],
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('turns text before the first tool call into the tool plan, and text after it into content', () => {
    const { body } = encode(
      irRequest({
        messages: [
          user('Go'),
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'Let me ' }, { type: 'text', text: 'check.' }, call('c1'), call('c2', '{"a":1}'), { type: 'text', text: 'Done.' }],
          },
        ],
      }),
    );
    expect((body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      tool_plan: 'Let me check.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{"a":1}' } },
      ],
      content: 'Done.',
    });
  });

  it('replays reasoning text from any protocol as thinking, reporting signatures and encrypted reasoning it cannot carry', () => {
    const { body, warnings } = encode(
      irRequest({
        messages: [
          user('Q'),
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'A.' },
              { type: 'reasoning', text: 'Because.', signature: 'EqQBCkYIBxgCKkDk', origin: 'anthropic' },
              { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix', origin: 'anthropic' },
            ],
          },
        ],
      }),
    );
    expect((body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Because.' },
        { type: 'text', text: 'A.' },
      ],
    });
    expect(warnings.map((w) => w.path)).toEqual(['messages[1].content[1].signature', 'messages[1].content[2].redacted']);
  });

  it('sends one tool message per result, reports the error flag, refuses images in a result', () => {
    const results: Message = {
      role: 'tool',
      content: [
        { type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: '{"ok":true}' }], isError: false },
        {
          type: 'tool_result',
          callId: 'c2',
          content: [
            { type: 'text', text: 'boom' },
            { type: 'text', text: 'again' },
          ],
          isError: true,
        },
        { type: 'tool_result', callId: 'c3', content: [], isError: false },
      ],
    };
    const { body, warnings } = encode(irRequest({ messages: [user('Go'), { role: 'assistant', content: [call('c1'), call('c2'), call('c3')] }, results] }));
    expect((body.messages as unknown[]).slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: [
          { type: 'text', text: 'boom' },
          { type: 'text', text: 'again' },
        ],
      },
      { role: 'tool', tool_call_id: 'c3', content: '' },
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['messages[2].content[1].is_error']);
    const image: Message = {
      role: 'tool',
      content: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }], isError: false }],
    };
    expect(failureOf(() => codec.encodeRequest(irRequest({ messages: [user('Go'), image] }), COHERE_LANE))).toMatchObject({
      status: 400,
      param: 'messages[1].content[0].content[0]',
    });
  });

  it('refuses images in a system message and blocks that have no place in a user turn', () => {
    const image: ContentBlock = { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } };
    expect(failureOf(() => codec.encodeRequest(irRequest({ messages: [{ role: 'system', content: [image] }] }), COHERE_LANE))).toMatchObject({
      status: 400,
      param: 'messages[0].content[0]',
    });
    expect(failureOf(() => codec.encodeRequest(irRequest({ messages: [{ role: 'user', content: [call('c1')] }] }), COHERE_LANE))).toMatchObject({
      status: 400,
      param: 'messages[0].content[0]',
    });
  });

  it('sends base64 images as data URIs with their detail, and asks for a stream in the body', () => {
    const { body } = encode(
      irRequest({
        stream: true,
        messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'low' }] }],
      }),
    );
    expect(body).toMatchObject({
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } }] }],
    });
    expect(encode(irRequest()).body).not.toHaveProperty('stream');
    expect(codec.upstreamPath('command-a', true)).toBe('/v2/chat');
  });
});

describe('responses', () => {
  const response = (extra: Partial<ChatResponse>): ChatResponse => ({
    id: 'r1',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hi' }],
    finish: { reason: 'stop', raw: 'end_turn' },
    usage: null,
    ...extra,
  });
  const encodeBody = (r: ChatResponse) => {
    const encoded = codec.encodeResponse(r, { streamUsage: false });
    expect(schemaErrors(SCHEMAS.response, encoded.body)).toEqual([]);
    return encoded;
  };

  it.each([
    [{ reason: 'refusal', raw: 'refusal' }, 'COMPLETE'],
    [{ reason: 'content_filter', raw: 'content_filter' }, 'COMPLETE'],
    [{ reason: 'context_exceeded', raw: 'model_context_window_exceeded' }, 'MAX_TOKENS'],
    [{ reason: 'error', raw: 'TIMEOUT' }, 'TIMEOUT'],
    [{ reason: 'error', raw: null }, 'ERROR'],
    [{ reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: 'END' }, 'STOP_SEQUENCE'],
  ] as const)('finish %j is written as %s', (finish, wire) => {
    expect(encodeBody(response({ finish })).body.finish_reason).toBe(wire);
  });

  it('decodes TIMEOUT as an error finish that keeps the raw reason, and leaves citations out', () => {
    const decoded = codec.decodeResponse({
      id: 'r2',
      finish_reason: 'TIMEOUT',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Part' }, { type: 'citation-card' }], citations: [{ start: 0, end: 4, text: 'Part' }] },
    });
    expect(decoded).toEqual({ id: 'r2', model: '', content: [{ type: 'text', text: 'Part' }], finish: { reason: 'error', raw: 'TIMEOUT' }, usage: null });
  });

  it('reports usage detail it has no field for, while the totals keep every token', () => {
    const usage = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 10, cacheWriteTokens: 20, reasoningTokens: 30 };
    const { body, warnings } = encodeBody(response({ usage }));
    expect(body.usage).toEqual({ billed_units: { input_tokens: 100, output_tokens: 50 }, tokens: { input_tokens: 100, output_tokens: 50 }, cached_tokens: 10 });
    expect(warnings.map((w) => w.path)).toEqual(['usage.cache_write_tokens', 'usage.reasoning_tokens']);
  });

  it('falls back to billed units when the token counts are missing', () => {
    const decoded = codec.decodeResponse({
      id: 'r3',
      finish_reason: 'COMPLETE',
      message: { role: 'assistant' },
      usage: { billed_units: { input_tokens: 7, output_tokens: 3 } },
    });
    expect(decoded.usage).toEqual({ inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  it('writes reasoning as thinking first and reports an Anthropic signature it cannot carry', () => {
    const { body, warnings } = encodeBody(
      response({ content: [{ type: 'reasoning', text: 'Hmm.', signature: 'sig', origin: 'anthropic' }, { type: 'text', text: 'Plan.' }, call('c1')] }),
    );
    expect(body.message).toEqual({
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Hmm.' }],
      tool_plan: 'Plan.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
    });
    expect(warnings.map((w) => w.path)).toEqual(['content[0].signature']);
  });
});

describe('stream decoding', () => {
  const sse = (...payloads: Record<string, unknown>[]) => Buffer.from(payloads.map((p) => `event: ${String(p.type)}\ndata: ${JSON.stringify(p)}\n\n`).join(''));
  const begin = { type: 'message-start', id: 'm1', delta: { message: { role: 'assistant' } } };
  const finish = { type: 'message-end', delta: { finish_reason: 'COMPLETE' } };
  const text = (index: number, t: string) => ({ type: 'content-delta', index, delta: { message: { content: { text: t } } } });

  it('closes the tool plan when content starts, and closes at message-end what the upstream left open', () => {
    const events = decodeStream([
      sse(
        begin,
        { type: 'tool-plan-delta', delta: { message: { tool_plan: 'Plan.' } } },
        { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: 'A' } } } },
        text(0, 'B'),
        finish,
      ),
    ]);
    expect(events).toEqual([
      { type: 'message_start', id: 'm1', model: '' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Plan.' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'block_delta', index: 1, delta: { type: 'text', text: 'A' } },
      { type: 'block_delta', index: 1, delta: { type: 'text', text: 'B' } },
      { type: 'block_stop', index: 1 },
      { type: 'finish', finish: { reason: 'stop', raw: 'COMPLETE' } },
      { type: 'message_stop' },
    ]);
  });

  it('skips citations, debug events, event types it does not know and payloads that are not objects', () => {
    const noise = Buffer.from(
      'event: citation-start\ndata: {"type":"citation-start","index":0,"delta":{"message":{"citations":{"start":0,"end":1}}}}\n\n' +
        'event: debug\ndata: {"type":"debug","prompt":"..."}\n\n' +
        'event: brand-new\ndata: {"type":"brand-new","x":1}\n\n' +
        'data: null\n\n',
    );
    const events = decodeStream([sse(begin), noise, sse(finish)]);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'finish', 'message_stop']);
  });

  it('takes the event type from the SSE event name when the payload has none', () => {
    const bytes = Buffer.from('event: message-end\ndata: {"delta":{"finish_reason":"MAX_TOKENS"}}\n\n');
    expect(decodeStream([sse(begin), bytes])).toEqual([
      { type: 'message_start', id: 'm1', model: '' },
      { type: 'finish', finish: { reason: 'length', raw: 'MAX_TOKENS' } },
      { type: 'message_stop' },
    ]);
  });
});

describe('errors', () => {
  it('encodes {message} with the status and a whole-second Retry-After', () => {
    const envelope = codec.encodeError({ kind: 'rate_limit', status: 429, message: 'slow down', retryAfterSeconds: 1.2 });
    expect(envelope).toEqual({ status: 429, body: '{"message":"slow down"}', headers: { 'content-type': 'application/json', 'retry-after': '2' } });
    expect(schemaErrors(SCHEMAS.error, JSON.parse(envelope.body))).toEqual([]);
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'authentication'],
    [403, 'permission'],
    [404, 'not_found'],
    [422, 'invalid_request'],
    [429, 'rate_limit'],
    [498, 'authentication'],
    [499, 'server'],
    [500, 'server'],
    [501, 'server'],
    [503, 'unavailable'],
    [504, 'timeout'],
  ])('an upstream %i is kind %s and keeps its status and message', (status, kind) => {
    const error = codec.decodeError({ status, bodyText: '{"id":"a1b2","message":"it went wrong"}', headers: {}, retryAfterSeconds: undefined });
    expect(error).toEqual({ kind, status, message: 'it went wrong' });
  });

  it("keeps Retry-After, and describes a body that is not Cohere's shape", () => {
    expect(codec.decodeError({ status: 429, bodyText: '{"message":"too many requests"}', headers: {}, retryAfterSeconds: 7 })).toEqual({
      kind: 'rate_limit',
      status: 429,
      message: 'too many requests',
      retryAfterSeconds: 7,
    });
    expect(codec.decodeError({ status: 502, bodyText: '<html>Bad Gateway</html>', headers: {}, retryAfterSeconds: undefined })).toEqual({
      kind: 'server',
      status: 502,
      message: 'upstream answered 502: <html>Bad Gateway</html>',
    });
  });
});
