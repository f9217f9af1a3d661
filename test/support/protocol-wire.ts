// Scripted upstream replies in any of the six wire protocols, for the mock upstream: answers,
// streams split event by event (so a script can cut or stall between them), HTTP errors, in-band
// stream errors and malformed events. The bytes come from each protocol's own encoders (the ones
// whose output the official SDKs are tested to read), so what the mock sends is real wire format.
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { gatewayError, type ErrorKind, type ProtocolId, type StreamEvent } from '../../server/ir/index.ts';
import type { ScriptedReply } from './mock-upstream.ts';
import { codecOf } from './six-protocol-server.ts';

/** A stream cut into its wire events: the ones before the first text, and the rest. */
export interface WireStream {
  readonly headers: Record<string, string>;
  /** Lifecycle events (message start, role chunk, the empty text block opening); may be empty where the protocol has none. */
  readonly beforeContent: (string | Buffer)[];
  /** Content events, then the finish, usage and end marker. */
  readonly fromContent: (string | Buffer)[];
  /** How many of `fromContent` carry text (the rest are the ending). */
  readonly contentEvents: number;
}

function irStream(text: string, model: string): StreamEvent[] {
  const half = Math.ceil(text.length / 2);
  return [
    { type: 'message_start', id: `resp_${model}`, model },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: text.slice(0, half) } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: text.slice(half) } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: { reason: 'stop', raw: null } },
    { type: 'usage', usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    { type: 'message_stop' },
  ];
}

const asWire = (chunk: string | Uint8Array): string | Buffer => (typeof chunk === 'string' ? chunk : Buffer.from(chunk));

/** Stream headers: event-stream framing for Bedrock, SSE for the others (Gemini is asked with alt=sse). */
export function streamHeaders(protocol: ProtocolId): Record<string, string> {
  return protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { 'content-type': 'text/event-stream' };
}

/** A whole stream answering `text`, one wire event per IR event that has a wire form. */
export function wireStream(protocol: ProtocolId, text: string, model = `upstream-${protocol}`): WireStream {
  const encoder = codecOf(protocol).createStreamEncoder({ streamUsage: true });
  const beforeContent: (string | Buffer)[] = [];
  const fromContent: (string | Buffer)[] = [];
  let contentEvents = 0;
  for (const event of irStream(text, model)) {
    const chunk = encoder.encode(event);
    if (chunk.length === 0) continue;
    const seenContent = fromContent.length > 0 || event.type === 'block_delta';
    (seenContent ? fromContent : beforeContent).push(asWire(chunk));
    if (event.type === 'block_delta') contentEvents++;
  }
  return { headers: streamHeaders(protocol), beforeContent, fromContent, contentEvents };
}

/**
 * A stream that fails in-band with the protocol's own error event (an error chunk, `event: error`,
 * an exception frame, Cohere's `message-end` with an error): before any content, or after the
 * first piece of text. One encoder writes it all, as one upstream would.
 */
export function wireErrorStream(protocol: ProtocolId, kind: ErrorKind, afterContent: boolean, text = 'partial answer'): (string | Buffer)[] {
  const encoder = codecOf(protocol).createStreamEncoder({ streamUsage: true });
  const events = irStream(text, `upstream-${protocol}`);
  const firstDelta = events.findIndex((e) => e.type === 'block_delta');
  const upTo = afterContent ? firstDelta + 1 : firstDelta; // before: right after the (empty) block opened
  const chunks = [...events.slice(0, upTo), { type: 'error' as const, error: gatewayError(kind, 'upstream trouble') }].map((e) => encoder.encode(e));
  return chunks.filter((c) => c.length > 0).map(asWire);
}

/** An event the protocol's decoder cannot read: bad JSON in an SSE event, a frame whose CRC fails. */
export function wireMalformed(protocol: ProtocolId): string | Buffer {
  if (protocol !== 'bedrock') return protocol === 'openai' || protocol === 'gemini' ? 'data: {not json\n\n' : 'event: message\ndata: {not json\n\n';
  const frame = Buffer.from(wireStream('bedrock', 'x').fromContent[0]!);
  frame[frame.length - 1] = frame[frame.length - 1]! ^ 0xff; // the message CRC no longer matches
  return frame;
}

/** The protocol's HTTP error answer (status, headers such as Bedrock's x-amzn-errortype, body). */
export function wireHttpError(protocol: ProtocolId, kind: ErrorKind, status: number, extraHeaders: Record<string, string> = {}): ScriptedReply {
  const envelope = codecOf(protocol).encodeError(gatewayError(kind, `upstream says ${status}`, { status }));
  return { status, headers: { ...envelope.headers, ...extraHeaders }, raw: envelope.body };
}
