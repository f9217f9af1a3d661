import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** Response headers of a stream in AWS event-stream framing (Bedrock ConverseStream). */
export const EVENTSTREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/vnd.amazon.eventstream',
  'cache-control': 'no-cache',
};

/** One decoded event-stream message: string headers (all Bedrock sends) and the raw payload. */
export interface EventStreamFrame {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: Uint8Array;
}

// Stateless for encode and decode: one instance serves every stream.
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A complete frame's bytes to its headers and payload. Throws when either CRC32 does not match. */
export function decodeFrame(bytes: Uint8Array): EventStreamFrame {
  const message = codec.decode(bytes);
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(message.headers)) headers[name] = String(header.value);
  return { headers, payload: message.body };
}

/** String headers and a UTF-8 payload to one frame, prelude and CRCs included. */
export function encodeFrame(headers: Readonly<Record<string, string>>, payload: string): Uint8Array {
  const typed: MessageHeaders = {};
  for (const [name, value] of Object.entries(headers)) typed[name] = { type: 'string', value };
  return codec.encode({ headers: typed, body: fromUtf8(payload) });
}
