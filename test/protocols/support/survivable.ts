// What an encode -> decode round trip through one protocol's wire format must preserve. The
// projection is applied to both sides; everything it does not touch must survive exactly, and
// each rule names a place where that wire format has no room for an IR value.
import type { ChatResponse, GatewayError, StreamEvent } from '../../../server/ir/index.ts';
import type { FixtureProtocol } from './fixtures.ts';

export function survivingResponse(protocol: FixtureProtocol, response: ChatResponse): ChatResponse {
  // OpenAI has no refusal finish reason: the encoder writes `content_filter` and puts the text in
  // `message.refusal`, which is what makes the decoder call it a refusal again. The raw is ours.
  if (protocol === 'openai' && response.finish.reason === 'refusal') {
    return { ...response, finish: { ...response.finish, raw: null } };
  }
  return response;
}

/** A stream event as far as it survives; errors keep only the members their wire form carries. */
export type SurvivingEvent = StreamEvent | { readonly type: 'error'; readonly error: Partial<GatewayError> };

export function survivingStream(protocol: FixtureProtocol, events: readonly StreamEvent[]): SurvivingEvent[] {
  const out: SurvivingEvent[] = [];
  for (const [i, event] of events.entries()) {
    const next = events[i + 1];
    // OpenAI chunks have no block boundaries: the decoder closes an open block when the stream
    // ends early but not before an in-stream error, so a stop right before an error is not wire data.
    if (protocol === 'openai' && event.type === 'block_stop' && next?.type === 'error') continue;
    out.push(project(protocol, event));
  }
  return out;
}

function project(protocol: FixtureProtocol, event: StreamEvent): SurvivingEvent {
  switch (event.type) {
    case 'message_start':
      // The Anthropic encoder states zero output tokens at message_start; the real count follows in message_delta.
      if (protocol === 'anthropic' && event.usage !== undefined) return { ...event, usage: { ...event.usage, outputTokens: 0 } };
      return event;
    case 'finish':
      // OpenAI: a streamed refusal has already gone out as `content`, so it can only come back as a content filter.
      if (protocol === 'openai' && (event.finish.reason === 'refusal' || event.finish.reason === 'content_filter')) {
        return { type: 'finish', finish: { reason: 'content_filter', raw: null } };
      }
      return event;
    case 'error':
      return { type: 'error', error: survivingError(protocol, event.error) };
    default:
      return event;
  }
}

/**
 * In-stream errors carry no HTTP status (the stream already answered 200), so the decoder assigns
 * the kind's usual one. Anthropic's error event has only `type` and `message`, so a code does not
 * survive either; OpenAI's has `code`.
 */
function survivingError(protocol: FixtureProtocol, error: GatewayError): Partial<GatewayError> {
  return protocol === 'openai' ? { kind: error.kind, message: error.message, code: error.code ?? null } : { kind: error.kind, message: error.message };
}
