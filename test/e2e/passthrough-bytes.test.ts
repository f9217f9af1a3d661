// Same protocol in and out is byte-faithful: the upstream sees the client's bytes with only the
// model value replaced, and the client sees the upstream's bytes exactly, streams and errors too.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(h.url + path, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: 'Bearer anything', ...headers },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const ROUTES = [
  { protocol: 'openai', path: '/v1/chat/completions', model: 'gpt', upstreamModel: 'gpt-4.1-mini', headers: {} },
  { protocol: 'anthropic', path: '/v1/messages', model: 'claude', upstreamModel: 'claude-sonnet-4-5', headers: { 'anthropic-version': '2023-06-01' } },
] as const;

describe.each(ROUTES)('$protocol passthrough', (route) => {
  const request = (stream: boolean) =>
    `{\n  "messages" : [ {"role":"user","content":"caf\\u00e9 ☕ \\"quoted\\" model"} ],\n  "max_tokens":\t64,` +
    `\n  "x_vendor_field": {"model": "not this one", "n": [1.50, 2e3]},\n  "model": "${route.model}",\n  "stream": ${stream}\n}`;

  it('sends the request bytes upstream with only the model value replaced', async () => {
    await post(route.path, request(false), route.headers);
    const sent = h.upstream.requests[0];
    expect(sent?.rawBody.toString('utf8')).toBe(request(false).replace(`"model": "${route.model}"`, `"model": "${route.upstreamModel}"`));
  });

  it('returns the upstream answer byte for byte, unknown fields and formatting included', async () => {
    const answer = '{ "id":"x-1",  "weird_new_field": {"nested": [1.0, 2.50]}, "unicode": "\\u00e9 ☕", "model":"upstream-model-2025" }';
    h.upstream.enqueue({ status: 200, headers: { 'content-type': 'application/json' }, raw: answer });
    const res = await post(route.path, request(false), route.headers);
    expect(res.status).toBe(200);
    expect(res.bytes.toString('utf8')).toBe(answer);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('returns the upstream stream byte for byte, comments and unknown events included', async () => {
    // Real grammar for each protocol (the gateway watches the events to decide when to commit),
    // with what a byte-faithful relay must keep: comments, unknown events and fields, CRLF, UTF-8.
    const events =
      route.protocol === 'openai'
        ? [
            ': keep-alive\n\n',
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}\n\n',
            'event: vendor_extension\ndata: {"novel":true}\n\n',
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","x_new":1,"choices":[{"index":0,"delta":{"content":"ü"},"finish_reason":null}]}\r\n\r\n',
            'data: [DONE]\n\n',
          ]
        : [
            ': keep-alive\n\n',
            'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
            'event: vendor_extension\ndata: {"type":"vendor_extension","novel":true}\n\n',
            'event: content_block_start\r\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\r\n\r\n',
            'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ü"}}\n\n',
            'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
            'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}\n\n',
            'event: message_stop\ndata: {"type":"message_stop"}\n\n',
          ];
    h.upstream.enqueue({ events, delayMs: 2 });
    const res = await post(route.path, request(true), route.headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.bytes.toString('utf8')).toBe(events.join(''));
  });

  it('relays an upstream error verbatim, status and Retry-After included', async () => {
    const errorBody =
      route.protocol === 'openai'
        ? '{"error":{"message":"Slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}'
        : '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    const status = route.protocol === 'openai' ? 429 : 529;
    h.upstream.enqueue({ status, headers: { 'content-type': 'application/json', 'retry-after': '3' }, raw: errorBody });
    const res = await post(route.path, request(false), route.headers);
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.bytes.toString('utf8')).toBe(errorBody);
  });
});
