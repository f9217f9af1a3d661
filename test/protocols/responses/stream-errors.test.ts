// The Responses in-stream error forms (`error` event flat or nested, response.failed) become typed
// IR errors, and the encoder writes an IR error as an `error` event followed by response.failed.
// (A stream cut before its terminal event: ../stream-truncation.test.ts.)
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte } from '../support/chunking.ts';
import { decodeStream, encodeStream, payloads, streamProblems } from './support.ts';

describe('in-stream errors from an upstream', () => {
  const created =
    'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"gpt-5.5","output":[],"usage":null}}\n\n';
  const decodeWith = (frame: string) => decodeStream(byteByByte(Buffer.from(created + frame)));
  const errorEvent = (payload: object) => `event: error\ndata: ${JSON.stringify({ type: 'error', sequence_number: 1, ...payload })}\n\n`;

  it.each([
    ['server_error', 'server', 500],
    ['rate_limit_exceeded', 'rate_limit', 429],
    ['insufficient_quota', 'billing', 402],
    ['invalid_prompt', 'invalid_request', 400],
    ['image_content_policy_violation', 'invalid_request', 400],
    ['vector_store_timeout', 'timeout', 504],
    ['overloaded_error', 'overloaded', 529],
  ])('a flat `error` event with code %s becomes kind %s (status %i)', (code, kind, status) => {
    const events = decodeWith(errorEvent({ code, message: 'boom', param: null }));
    expect(events.map((e) => e.type)).toEqual(['message_start', 'error']);
    expect(events[1]).toEqual({ type: 'error', error: { kind, status, message: 'boom', code } });
  });

  it('reads the nested form some servers send ({type:"error", error:{...}})', () => {
    const events = decodeWith(errorEvent({ error: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long', param: 'input' } }));
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'invalid_request', status: 400, message: 'too long', code: 'context_length_exceeded' } });
  });

  it('reads response.failed as an error carrying response.error', () => {
    const failed =
      'event: response.failed\ndata: {"type":"response.failed","sequence_number":1,"response":{"id":"resp_1","object":"response","created_at":1,"status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"},"model":"gpt-5.5","output":[],"usage":null}}\n\n';
    expect(decodeWith(failed).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'rate_limit', status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded' },
    });
  });

  it('ignores what follows the first error, and end() adds no second one', () => {
    const failed =
      'event: response.failed\ndata: {"type":"response.failed","sequence_number":2,"response":{"id":"resp_1","object":"response","created_at":1,"status":"failed","error":{"code":"server_error","message":"x"},"model":"m","output":[]}}\n\n';
    const events = decodeWith(errorEvent({ code: 'server_error', message: 'first', param: null }) + failed);
    expect(events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', error: { kind: 'server', status: 500, message: 'first', code: 'server_error' } },
    ]);
  });

  it('a data payload that is not JSON is a 502 server error', () => {
    const events = decodeStream([Buffer.from('event: response.created\ndata: <html>Bad Gateway</html>\n\n')]);
    expect(events).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'server', status: 502 }) as unknown }]);
  });
});

describe('the stream encoder on an IR error', () => {
  const start: StreamEvent[] = [
    { type: 'message_start', id: 'resp_9', model: 'gpt-5.5' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Hal' } },
  ];

  it('writes an `error` event then response.failed, both valid, and nothing after', () => {
    const text = encodeStream([...start, { type: 'error', error: { kind: 'overloaded', status: 529, message: 'Overloaded' } }, { type: 'message_stop' }]);
    expect(streamProblems(text)).toEqual([]);
    const tail = payloads(text).slice(-2);
    expect(tail[0]).toMatchObject({ type: 'error', code: 'overloaded_error', message: 'Overloaded', param: null });
    expect(tail[1]).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'overloaded_error', message: 'Overloaded' } } });
  });

  it('keeps an error code it was given, and decodes back to the same kind and code', () => {
    const text = encodeStream([...start, { type: 'error', error: { kind: 'server', status: 502, message: 'cut', code: 'upstream_stream_truncated' } }]);
    expect(decodeStream([Buffer.from(text)]).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'server', status: 500, message: 'cut', code: 'upstream_stream_truncated' },
    });
  });
});
