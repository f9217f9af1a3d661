// Gemini in-stream error chunks map to the right kind; garbage is a 502. (A stream cut before its
// finishing chunk: ../stream-truncation.test.ts.)
import { describe, expect, it } from 'vitest';
import { byteByByte, decodeChunks, splitAt } from './support.ts';

describe('in-stream error chunks', () => {
  const start =
    'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "r1"}\r\n\r\n';
  const errorChunk = (code: number | undefined, status: string, message: string) =>
    `data: ${JSON.stringify({ error: { ...(code !== undefined && { code }), message, status } })}\r\n\r\n`;

  it.each([
    [429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', 'rate_limit'],
    [500, 'INTERNAL', 'An internal error has occurred.', 'server'],
    [503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.', 'unavailable'],
    [504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.', 'timeout'],
    [400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'invalid_request'],
  ])('code %i %s becomes kind %s... and keeps status, message and status name', (code, status, message, kind) => {
    const events = decodeChunks([Buffer.from(start + errorChunk(code, status, message))]);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind, status: code, message, code: status } });
  });

  it('without a numeric code, the status name decides the kind and the kind the status', () => {
    const events = decodeChunks([Buffer.from(start + errorChunk(undefined, 'RESOURCE_EXHAUSTED', 'Quota exceeded'))]);
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'rate_limit', status: 429, message: 'Quota exceeded', code: 'RESOURCE_EXHAUSTED' } });
  });

  it('chunks after an error are ignored, and end() adds no second error, split anywhere', () => {
    const more = start.replace('"Hi"', '"more"').replace('"index": 0}', '"finishReason": "STOP","index": 0}');
    const bytes = Buffer.from(start + errorChunk(500, 'INTERNAL', 'boom') + more);
    for (let offset = 0; offset <= bytes.length; offset++) {
      expect(
        decodeChunks(splitAt(bytes, offset)).map((e) => e.type),
        `split at ${offset}`,
      ).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
    }
  });

  it('an error element of a JSON array stream is an error too', () => {
    const text =
      '[{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}]}\n,\r\n{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}\n]';
    const events = decodeChunks(byteByByte(Buffer.from(text)));
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'rate_limit', status: 429, message: 'slow down', code: 'RESOURCE_EXHAUSTED' } });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
  });

  it.each([
    ['an SSE payload that is not JSON', 'data: <html>Bad Gateway</html>\r\n\r\n'],
    ['a JSON array element that is not JSON', '[{"candidates": [}]'],
    ['an array of something other than objects', '[1, 2]'],
  ])('%s is one 502 server error', (_, text) => {
    const events = decodeChunks([Buffer.from(text)]);
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'server', status: 502 } });
  });

  it('an empty body is a truncated stream', () => {
    expect(decodeChunks([])).toEqual([
      {
        type: 'error',
        error: { kind: 'server', status: 502, message: 'the Gemini upstream closed the stream before it was complete', code: 'upstream_stream_truncated' },
      },
    ]);
  });
});
