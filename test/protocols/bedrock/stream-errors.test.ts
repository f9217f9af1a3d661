// Bedrock exception frames become IR errors of the right kind; broken framing is a 502. (A stream
// cut before messageStop: ../stream-truncation.test.ts.)
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { byteByByte } from '../support/chunking.ts';
import { frameBytes, rawFrameBytes, type FixtureFrame } from './support/frames.ts';
import { decodeStream } from './support/stream.ts';

const event = (type: string, payload: unknown): FixtureFrame => ({
  headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
  payload,
});
const exception = (type: string, payload: unknown): FixtureFrame => ({
  headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
  payload,
});
const bytesOf = (...frames: FixtureFrame[]) => Buffer.concat(frames.map(frameBytes));
const OPENING = [event('messageStart', { role: 'assistant' }), event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } })];
const OPENING_EVENTS: StreamEvent[] = [
  { type: 'message_start', id: '', model: '' },
  { type: 'block_start', index: 0, block: { type: 'text' } },
  { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Hi' } },
];

describe('bedrock exception frames', () => {
  it.each([
    ['throttlingException', 'Too many requests, please wait before trying again.', 'rate_limit', 429],
    ['serviceUnavailableException', 'Bedrock is unable to process your request.', 'unavailable', 503],
    ['modelStreamErrorException', 'Model Stream Error', 'server', 500],
    ['validationException', 'Input is too long for requested model.', 'invalid_request', 400],
    ['internalServerException', 'The server encountered an internal error.', 'server', 500],
    ['brandNewException', 'Something new', 'server', 500],
  ])('%s becomes kind %s with status %i, keeping the type as its code', (type, message, kind, status) => {
    const events = decodeStream(byteByByte(bytesOf(...OPENING, exception(type, { message }))));
    expect(events).toEqual([...OPENING_EVENTS, { type: 'error', error: { kind, status, message, code: type } }]);
  });

  it('reads a capitalised Message and keeps going without one', () => {
    expect(decodeStream([bytesOf(exception('throttlingException', { Message: 'Slow down' }))]).at(-1)).toMatchObject({
      error: { kind: 'rate_limit', message: 'Slow down' },
    });
    expect(decodeStream([bytesOf(exception('throttlingException', {}))]).at(-1)).toMatchObject({
      error: { kind: 'rate_limit', message: 'Bedrock stream exception throttlingException' },
    });
  });

  it('a recorded modelStreamErrorException frame (vercel/ai fixture bytes) decodes', () => {
    // model-stream-error-exception.eventstream.base64.txt in vercel/ai packages/amazon-bedrock.
    const recorded = Buffer.from(
      'AAAA3QAAAGfHkZB6DTptZXNzYWdlLXR5cGUHAAlleGNlcHRpb24POmV4Y2VwdGlvbi10eXBlBwAZbW9kZWxTdHJlYW1FcnJvckV4Y2VwdGlvbg06Y29udGVudC10eXBlBwAQYXBwbGljYXRpb24vanNvbnsibWVzc2FnZSI6Ik1vZGVsIFN0cmVhbSBFcnJvciIsIm9yaWdpbmFsU3RhdHVzQ29kZSI6NTAwLCJvcmlnaW5hbE1lc3NhZ2UiOiJUaGUgbW9kZWwgc3RyZWFtIGZhaWxlZC4ifVczQxM=',
      'base64',
    );
    expect(decodeStream([recorded])).toEqual([
      { type: 'error', error: { kind: 'server', status: 500, message: 'Model Stream Error', code: 'modelStreamErrorException' } },
    ]);
  });

  it('frames after an exception are ignored, and end() adds no second error', () => {
    const bytes = bytesOf(...OPENING, exception('throttlingException', { message: 'x' }), event('messageStop', { stopReason: 'end_turn' }));
    expect(decodeStream(byteByByte(bytes)).map((e) => e.type)).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
  });

  it('an unmodelled `:message-type: error` frame is a server error with its code', () => {
    const frame: FixtureFrame = { headers: { ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' }, payload: {} };
    expect(decodeStream([bytesOf(...OPENING, frame)]).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'server', status: 500, message: 'boom', code: 'InternalFailure' },
    });
  });
});

describe('broken bedrock framing', () => {
  const BAD = { type: 'error', error: { kind: 'server', status: 502, code: 'bad_upstream_stream' } };
  const onlyBad = (events: StreamEvent[]) => {
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject(BAD);
  };

  it('a flipped payload byte fails the message CRC: one 502, nothing after it', () => {
    const bytes = Buffer.concat([bytesOf(...OPENING), bytesOf(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'there' } }))]);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 8) ^ 0x01, bytes.length - 8);
    const events = decodeStream(byteByByte(bytes));
    expect(events.slice(0, -1)).toEqual(OPENING_EVENTS);
    expect(events.at(-1)).toMatchObject(BAD);
  });

  it('a changed length fails the prelude CRC', () => {
    const bytes = bytesOf(...OPENING);
    bytes[3] = (bytes[3] ?? 0) - 1;
    onlyBad(decodeStream([bytes]));
  });

  it('a length no frame can have is refused at once, before waiting for the bytes', () => {
    const decoder = bedrockCodec.createStreamDecoder();
    const events = decoder.push(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
    onlyBad(events);
    expect(decoder.end()).toEqual([]);
    onlyBad(decodeStream([Buffer.from([0, 0, 0, 4, 0, 0, 0, 0])]));
  });

  it('a payload that is not JSON is a 502', () => {
    const headers = { ':event-type': 'contentBlockDelta', ':message-type': 'event', ':content-type': 'application/json' };
    onlyBad(decodeStream([rawFrameBytes(headers, '<html>Bad Gateway</html>')]));
  });
});
