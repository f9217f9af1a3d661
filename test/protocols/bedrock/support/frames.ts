// Event-stream frames for tests, built and read with the AWS library codec directly: independent
// of server/framing (the splitter and the encoder under test). Fixture frames are written as
// {headers, payload} with the payload as JSON; the bytes are JSON.stringify of it.
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

export interface FixtureFrame {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: unknown;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export function frameBytes(frame: FixtureFrame): Uint8Array {
  return rawFrameBytes(frame.headers, JSON.stringify(frame.payload));
}

/** A frame with any payload text, JSON or not. */
export function rawFrameBytes(headers: Readonly<Record<string, string>>, payload: string): Uint8Array {
  const typed: MessageHeaders = {};
  for (const [name, value] of Object.entries(headers)) typed[name] = { type: 'string', value };
  return codec.encode({ headers: typed, body: fromUtf8(payload) });
}

export function framesToBytes(frames: readonly FixtureFrame[]): Buffer {
  return Buffer.concat(frames.map(frameBytes));
}

/** Reads well-formed bytes frame by frame (a naive reader: no frame may be cut). */
export function bytesToFrames(bytes: Uint8Array): FixtureFrame[] {
  const frames: FixtureFrame[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
    const message = codec.decode(bytes.subarray(offset, offset + length));
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) headers[name] = String(header.value);
    frames.push({ headers, payload: JSON.parse(toUtf8(message.body)) });
    offset += length;
  }
  return frames;
}

/** Byte offsets just past each frame. */
export function frameEnds(bytes: Uint8Array): number[] {
  const ends: number[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    offset += new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
    ends.push(offset);
  }
  return ends;
}

/** The frame as the union member the stream-event schema describes: {<event or exception type>: payload}. */
export function asStreamEvent(frame: FixtureFrame): Record<string, unknown> {
  const name = frame.headers[':message-type'] === 'exception' ? frame.headers[':exception-type'] : frame.headers[':event-type'];
  return { [name ?? '']: frame.payload };
}
