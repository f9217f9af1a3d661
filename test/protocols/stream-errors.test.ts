// In-stream error events of OpenAI and Anthropic map to the right error kind. (A stream cut before
// its terminator: stream-truncation.test.ts, for all six protocols.)
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { byteByByte, splitAt } from './support/chunking.ts';
import { decodeStream } from './support/codecs.ts';

describe('in-stream error events', () => {
  const anthropicError = (type: string, message: string) =>
    [
      'event: message_start\n',
      'data: {"type":"message_start","message":{"id":"msg_01Bv8NcTq3WzYx5Rk2LpH7Md","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":31,"output_tokens":1}}}\n\n',
      `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"${message}"}}\n\n`,
    ].join('');

  it.each([
    ['overloaded_error', 'Overloaded', 'overloaded', 529],
    ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', 'rate_limit', 429],
    ['api_error', 'Internal server error', 'server', 500],
    ['timeout_error', 'Request timed out', 'timeout', 504],
    ['invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum', 'invalid_request', 400],
  ])('Anthropic %s becomes kind %s with status %i', (type, message, kind, status) => {
    const events = decodeStream('anthropic', [Buffer.from(anthropicError(type, message))]);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'error']);
    expect(events[1]).toEqual({ type: 'error', error: { kind, status, message, code: type } });
  });

  it('Anthropic: an unknown error type is a server error that keeps the type as its code', () => {
    const events = decodeStream('anthropic', [Buffer.from(anthropicError('brand_new_error', 'Something new'))]);
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'server', status: 500, message: 'Something new', code: 'brand_new_error' } });
  });

  it('Anthropic: events after an error are ignored, and end() adds no second error', () => {
    const text = anthropicError('overloaded_error', 'Overloaded') + 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const events = decodeStream('anthropic', byteByByte(Buffer.from(text)));
    expect(events.map((e) => e.type)).toEqual(['message_start', 'error']);
  });

  it('OpenAI: `data: {"error": ...}` becomes a server error keeping the message and code, split anywhere', () => {
    const text =
      'data: {"id":"chatcmpl-CXkAbC4dE8fG2hI6jK0lM3nO7pQrS","object":"chat.completion.chunk","created":1763820080,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n' +
      'data: {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":"internal_error"}}\n\n';
    const expected: StreamEvent[] = [
      { type: 'message_start', id: 'chatcmpl-CXkAbC4dE8fG2hI6jK0lM3nO7pQrS', model: 'gpt-4.1' },
      {
        type: 'error',
        error: { kind: 'server', status: 500, message: 'The server had an error while processing your request. Sorry about that!', code: 'internal_error' },
      },
    ];
    const bytes = Buffer.from(text);
    for (let offset = 0; offset <= bytes.length; offset++) expect(decodeStream('openai', splitAt(bytes, offset))).toEqual(expected);
  });

  it.each(['openai', 'anthropic'] as const)('%s: a data payload that is not JSON is a 502 server error', (protocol) => {
    const events = decodeStream(protocol, [Buffer.from('data: <html>Bad Gateway</html>\n\n')]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'server', status: 502 } });
  });
});
