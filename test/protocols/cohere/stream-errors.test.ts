// A Cohere stream ends cleanly only at message-end: a cut anywhere before it ends the IR stream
// with exactly one error event. A failed generation (message-end with ERROR or TIMEOUT) is an
// error event too, never a clean-looking finish.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte, splitAt } from '../support/chunking.ts';
import { decodeStream, encodeStream, hasFile, readBytes, readJson, scenariosOf, streamProblems } from './support.ts';

const TRUNCATED = { kind: 'server', status: 502, code: 'upstream_stream_truncated' };
const complete = scenariosOf('cohere').filter((s) => hasFile(s, 'stream.ir.json') && readJson<StreamEvent[]>(s, 'stream.ir.json').at(-1)?.type === 'message_stop');

/** Byte offset just past the data line of message-end, the terminator. */
function terminatorEnd(bytes: Buffer): number {
  const line = bytes.toString('latin1').split('\n').filter((l) => l.startsWith('data: {"type":"message-end"')).at(-1) ?? '';
  return bytes.lastIndexOf(Buffer.from(line, 'latin1')) + line.length;
}

describe('a stream that ends without message-end', () => {
  it('is covered by several fixtures', () => {
    expect(complete.length).toBeGreaterThanOrEqual(5);
  });

  for (const scenario of complete) {
    const bytes = readBytes(scenario, 'stream.wire.txt');
    const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
    const end = terminatorEnd(bytes);

    it(`${scenario.name}: without the message-end frame, ends with the truncation error instead of finish, usage and message_stop`, () => {
      const events = decodeStream([bytes.subarray(0, bytes.lastIndexOf(Buffer.from('event: message-end')))]);
      expect(expected.slice(-3).map((e) => e.type)).toEqual(['finish', 'usage', 'message_stop']);
      expect(events.slice(0, -1)).toEqual(expected.slice(0, -3));
      expect(events.at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
    });

    it(`${scenario.name}: cut at any byte before the terminator, ends with exactly one error and no message_stop`, () => {
      for (let offset = 0; offset < end; offset++) {
        const events = decodeStream([bytes.subarray(0, offset)]);
        const where = `cut at byte ${offset} of ${bytes.length}`;
        expect(events.filter((e) => e.type === 'error'), where).toHaveLength(1);
        // A cut inside a data line leaves a fragment that is not JSON; both are 502 server errors.
        expect(events.at(-1), where).toMatchObject({ type: 'error', error: { kind: 'server', status: 502 } });
        const before = events.slice(0, -1);
        expect(before, where).toEqual(expected.slice(0, before.length));
        expect(before.some((e) => e.type === 'message_stop' || e.type === 'finish'), where).toBe(false);
      }
    });

    it(`${scenario.name}: once message-end's data line is in, the end is clean (a trailing [DONE] or not)`, () => {
      for (let offset = end; offset <= bytes.length; offset++) {
        expect(decodeStream([bytes.subarray(0, offset)]), `cut at byte ${offset}`).toEqual(expected);
      }
    });
  }
});

describe('in-stream errors', () => {
  const start = 'event: message-start\ndata: {"id":"4d5e6f7a-8b9c-4d0e-a1f2-b3c4d5e6f7a8","type":"message-start","delta":{"message":{"role":"assistant"}}}\n\n'
    + 'event: content-start\ndata: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n'
    + 'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Partial"}}}}\n\n';
  const end = (delta: Record<string, unknown>) => `event: message-end\ndata: ${JSON.stringify({ type: 'message-end', delta })}\n\n`;
  const head: StreamEvent[] = [
    { type: 'message_start', id: '4d5e6f7a-8b9c-4d0e-a1f2-b3c4d5e6f7a8', model: '' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Partial' } },
  ];

  it.each([
    [{ finish_reason: 'ERROR', error: 'internal server error' }, { kind: 'server', status: 500, message: 'internal server error', code: 'ERROR' }],
    [{ finish_reason: 'TIMEOUT', error: 'generation timed out' }, { kind: 'timeout', status: 504, message: 'generation timed out', code: 'TIMEOUT' }],
    [{ finish_reason: 'TIMEOUT' }, { kind: 'timeout', status: 504, message: 'the Cohere upstream reported an error during generation', code: 'TIMEOUT' }],
    [{ finish_reason: 'ERROR', error: '' }, { kind: 'server', status: 500, message: 'the Cohere upstream reported an error during generation', code: 'ERROR' }],
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
    expect(decodeStream([Buffer.from(timeout)]).at(-1)).toEqual({ type: 'error', error: { kind: 'timeout', status: 504, message: 'too slow', code: 'TIMEOUT' } });
  });
});
