// A Gemini stream has no terminator: it is complete at the chunk that carries a finishReason. A cut
// anywhere before that chunk's end ends the IR stream with exactly one error; in-stream error chunks
// map to the right kind; garbage is a 502.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { byteByByte, decodeChunks, hasFile, readBytes, readJson, scenarios, splitAt } from './support.ts';

const TRUNCATED = { kind: 'server', status: 502, code: 'upstream_stream_truncated' };

/** Without the block_stop and usage events the decoder adds on its own at a cut. */
const content = (events: readonly StreamEvent[]) => events.filter((e) => e.type !== 'block_stop' && e.type !== 'usage');

const complete = scenarios().filter((s) => hasFile(s, 'stream.ir.json') && readJson<StreamEvent[]>(s, 'stream.ir.json').at(-1)?.type === 'message_stop');

describe('a Gemini stream cut before its last chunk', () => {
  it('is covered by several complete fixtures', () => {
    expect(complete.length).toBeGreaterThan(5);
  });

  for (const scenario of complete) {
    for (const file of ['stream.wire.txt', 'stream.array.txt']) {
      if (!hasFile(scenario, file)) continue;
      const bytes = readBytes(scenario, file);
      const expected = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
      const text = bytes.toString('latin1');
      // The finishing chunk ends at its closing brace: the last `}` of the text.
      const end = text.lastIndexOf('}') + 1;

      it(`${scenario.name}/${file}: without the finishing chunk, ends with the truncation error instead of message_stop`, () => {
        const lastChunk = file === 'stream.wire.txt' ? text.lastIndexOf('data: ') : text.lastIndexOf('\n,\r\n');
        const events = decodeChunks([bytes.subarray(0, lastChunk)]);
        expect(events.at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
        expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
        expect(events.some((e) => e.type === 'message_stop' || e.type === 'finish')).toBe(false);
      });

      it(`${scenario.name}/${file}: cut at any byte before the finishing chunk ends, exactly one error and no message_stop`, () => {
        for (let offset = 0; offset < end; offset++) {
          const events = decodeChunks([bytes.subarray(0, offset)]);
          const where = `cut at byte ${offset} of ${bytes.length}`;
          expect(events.filter((e) => e.type === 'error'), where).toHaveLength(1);
          expect(events.at(-1), where).toMatchObject({ type: 'error', error: { kind: 'server', status: 502 } });
          const before = content(events.slice(0, -1));
          expect(before, where).toEqual(content(expected).slice(0, before.length));
          expect(before.some((e) => e.type === 'message_stop'), where).toBe(false);
        }
      });

      it(`${scenario.name}/${file}: once the finishing chunk is in, the end is clean`, () => {
        for (let offset = end; offset <= bytes.length; offset++) {
          expect(decodeChunks([bytes.subarray(0, offset)]), `cut at byte ${offset}`).toEqual(expected);
        }
      });
    }
  }
});

describe('in-stream error chunks', () => {
  const start = 'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "r1"}\r\n\r\n';
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
      expect(decodeChunks(splitAt(bytes, offset)).map((e) => e.type), `split at ${offset}`).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
    }
  });

  it('an error element of a JSON array stream is an error too', () => {
    const text = '[{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}]}\n,\r\n{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}\n]';
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
    expect(decodeChunks([])).toEqual([{ type: 'error', error: { kind: 'server', status: 502, message: 'the Gemini upstream closed the stream before it was complete', code: 'upstream_stream_truncated' } }]);
  });
});
