// server/framing's event-stream pieces: the splitter finds whole frames however the bytes arrive,
// and the frame codec agrees with the AWS library byte for byte.
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from '../../../server/framing/eventstream-frame.ts';
import { EventStreamSplitter } from '../../../server/framing/eventstream-splitter.ts';
import { byteByByte, splitAt } from '../support/chunking.ts';
import { frameBytes, rawFrameBytes } from './support/frames.ts';

const headers = { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' };
const small = Buffer.from(rawFrameBytes(headers, '{"contentBlockIndex":0,"delta":{"text":"é😀"}}'));
const large = Buffer.from(rawFrameBytes(headers, JSON.stringify({ contentBlockIndex: 1, delta: { text: 'x'.repeat(70_000) } })));
const empty = Buffer.from(rawFrameBytes({}, ''));
const stream = Buffer.concat([small, large, empty, small]);

function split(chunks: Iterable<Uint8Array>): { frames: Buffer[]; pending: number } {
  const splitter = new EventStreamSplitter();
  const frames: Buffer[] = [];
  for (const chunk of chunks) frames.push(...splitter.push(chunk).map((f) => Buffer.from(f)));
  return { frames, pending: splitter.pendingBytes };
}

describe('EventStreamSplitter', () => {
  const expected = [small, large, empty, small];

  it('finds every frame in one chunk, byte by byte, and split at every offset', () => {
    expect(split([stream])).toEqual({ frames: expected, pending: 0 });
    expect(split(byteByByte(stream))).toEqual({ frames: expected, pending: 0 });
    const head = Buffer.concat([small, empty, small]);
    for (let offset = 0; offset <= head.length; offset++) expect(split(splitAt(head, offset)).frames, `offset ${offset}`).toEqual([small, empty, small]);
  });

  it('holds an incomplete frame and says how many bytes it holds', () => {
    expect(split([stream.subarray(0, small.length + 10)])).toEqual({ frames: [small], pending: 10 });
    expect(split([stream.subarray(0, 3)])).toEqual({ frames: [], pending: 3 });
  });

  it('refuses a length no frame can have', () => {
    expect(() => new EventStreamSplitter().push(Buffer.from([0, 0, 0, 15]))).toThrow(/outside/);
    expect(() => new EventStreamSplitter().push(Buffer.from([0xff, 0, 0, 0]))).toThrow(/outside/);
  });
});

describe('encodeFrame / decodeFrame', () => {
  it('encodes exactly what the AWS library encodes and decodes it back', () => {
    const payload = { contentBlockIndex: 0, delta: { text: 'é😀' } };
    const bytes = encodeFrame(headers, JSON.stringify(payload));
    expect(Buffer.from(bytes).equals(Buffer.from(frameBytes({ headers, payload })))).toBe(true);
    const frame = decodeFrame(bytes);
    expect(frame.headers).toEqual(headers);
    expect(JSON.parse(new TextDecoder().decode(frame.payload))).toEqual(payload);
  });

  it('throws on a CRC mismatch', () => {
    const bytes = Buffer.from(encodeFrame(headers, '{}'));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    expect(() => decodeFrame(bytes)).toThrow(/checksum/);
  });
});
