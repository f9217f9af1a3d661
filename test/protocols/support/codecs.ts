import type { ProtocolCodec, StreamDecoder } from '../../../server/protocols/codec.ts';
import { codecFor } from '../../../server/protocols/registry.ts';
import type { StreamEvent } from '../../../server/ir/index.ts';
import type { FixtureProtocol } from './fixtures.ts';

export function codecOf(protocol: FixtureProtocol): ProtocolCodec {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec registered for ${protocol}`);
  return codec;
}

/** Feeds `chunks` to a fresh decoder in order, then ends it; all events, in order. */
export function decodeChunks(decoder: StreamDecoder, chunks: Iterable<Uint8Array>): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

export function decodeStream(protocol: FixtureProtocol, chunks: Iterable<Uint8Array>): StreamEvent[] {
  return decodeChunks(codecOf(protocol).createStreamDecoder(), chunks);
}

/** Encodes IR events with a fresh encoder for a client that asked for stream usage. */
export function encodeStream(protocol: FixtureProtocol, events: readonly StreamEvent[]): string {
  const encoder = codecOf(protocol).createStreamEncoder({ streamUsage: true });
  return events.map((event) => encoder.encode(event)).join('');
}
