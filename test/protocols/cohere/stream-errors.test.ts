// A failed Cohere generation (message-end with ERROR or TIMEOUT) is an error event, never a
// clean-looking finish. (A stream cut before message-end: ../stream-truncation.test.ts.)
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte, splitAt } from '../support/chunking.ts';
import { TRUNCATED } from '../support/truncation-rows.ts';
import { decodeStream, encodeStream, streamProblems } from './support.ts';

describe('in-stream errors', () => {
  const start =
    'event: message-start\ndata: {"id":"4d5e6f7a-8b9c-4d0e-a1f2-b3c4d5e6f7a8","type":"message-start","delta":{"message":{"role":"assistant"}}}\n\n' +
    'event: content-start\ndata: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n' +
    'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Partial"}}}}\n\n';
  const end = (delta: Record<string, unknown>) => `event: message-end\ndata: ${JSON.stringify({ type: 'message-end', delta })}\n\n`;
  const head: StreamEvent[] = [
    { type: 'message_start', id: '4d5e6f7a-8b9c-4d0e-a1f2-b3c4d5e6f7a8', model: '' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Partial' } },
  ];

  it.each([
    [
      { finish_reason: 'ERROR', error: 'internal server error' },
      { kind: 'server', status: 500, message: 'internal server error', code: 'ERROR' },
    ],
    [
      { finish_reason: 'TIMEOUT', error: 'generation timed out' },
      { kind: 'timeout', status: 504, message: 'generation timed out', code: 'TIMEOUT' },
    ],
    [{ finish_reason: 'TIMEOUT' }, { kind: 'timeout', status: 504, message: 'the Cohere upstream reported an error during generation', code: 'TIMEOUT' }],
    [
      { finish_reason: 'ERROR', error: '' },
      { kind: 'server', status: 500, message: 'the Cohere upstream reported an error during generation', code: 'ERROR' },
    ],
    [{ error: 'something broke' }, { kind: 'server', status: 500, message: 'something broke', code: null }],
  ])('message-end %j becomes the error %j, with no finish and no message_stop', (delta, error) => {
    const text = start + end(delta);
    expect(streamProblems(text)).toEqual([]);
    expect(decodeStream([Buffer.from(text)])).toEqual([...head, { type: 'error', error }]);
  });

  it('an error end keeps its usage, ahead of the error', () => {
    const usage = { billed_units: { input_tokens: 10, output_tokens: 2 }, tokens: { input_tokens: 40, output_tokens: 2 } };
    const events = decodeStream([Buffer.from(start + end({ finish_reason: 'ERROR', error: 'x', usage }))]);
    expect(events.slice(3).map((e) => e.type)).toEqual(['usage', 'error']);
  });

  it('events after the end are ignored, and end() adds no second error', () => {
    const text = start + end({ finish_reason: 'ERROR', error: 'x' }) + start;
    expect(decodeStream(byteByByte(Buffer.from(text))).map((e) => e.type)).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
  });

  it('a [DONE] before message-end does not end the stream cleanly', () => {
    const events = decodeStream([Buffer.from(start + 'data: [DONE]\n\n')]);
    expect(events).toEqual([...head, { type: 'error', error: expect.objectContaining(TRUNCATED) }]);
  });

  it('a data payload that is not JSON is a 502 server error, split anywhere', () => {
    const bytes = Buffer.from(start + 'data: <html>Bad Gateway</html>\n\n');
    for (let offset = 0; offset <= bytes.length; offset++) {
      const events = decodeStream(splitAt(bytes, offset));
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'server', status: 502, code: 'bad_upstream_stream' } });
    }
  });

  it('the encoder writes an IR error as an error end: finish_reason ERROR, or TIMEOUT for a timeout', () => {
    const { text } = encodeStream([...head, { type: 'error', error: { kind: 'rate_limit', status: 429, message: 'slow down' } }]);
    expect(streamProblems(text)).toEqual([]);
    expect(text.endsWith('event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"ERROR","error":"slow down"}}\n\n')).toBe(true);
    const timeout = encodeStream([{ type: 'error', error: { kind: 'timeout', status: 504, message: 'too slow' } }]).text;
    expect(decodeStream([Buffer.from(timeout)]).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'timeout', status: 504, message: 'too slow', code: 'TIMEOUT' },
    });
  });
});
