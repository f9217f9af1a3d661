// Helpers for the Responses codec tests: its fixtures, its validators, its stream grammar, and what
// an encode -> decode round trip through the Responses wire format can keep. The shared helpers in
// ../support/ know only the OpenAI and Anthropic fixtures, so the pieces for this protocol live here.
import type { ValidateFunction } from 'ajv';
import validateError from '../../../generated/validators/responses-error.js';
import validateRequest from '../../../generated/validators/responses-request.js';
import validateResponse from '../../../generated/validators/responses-response.js';
import validateStreamEvent from '../../../generated/validators/responses-stream-event.js';
import type { ChatRequest, ChatResponse, GatewayError, StreamEvent } from '../../../server/ir/index.ts';
import type { LaneContext } from '../../../server/protocols/codec.ts';
import { responsesCodec } from '../../../server/protocols/responses/index.ts';
import { decodeChunks } from '../support/codecs.ts';
import { sseFrames } from '../support/sse-frames.ts';
import { schemaErrors } from '../support/validators.ts';

export const codec = responsesCodec;
export const LANE: LaneContext = { model: 'gpt-5.5', defaultMaxTokens: 2048 };
export const SCHEMAS = { request: validateRequest, response: validateResponse, streamEvent: validateStreamEvent, error: validateError } satisfies Record<
  string,
  ValidateFunction
>;

export { hasFile as has, readBytes as bytes, readJson as json, scenariosIn as fixtures } from '../support/fixtures.ts';

export const decodeStream = (chunks: Iterable<Uint8Array>): StreamEvent[] => decodeChunks(codec.createStreamDecoder(), chunks);

export function encodeStream(events: readonly StreamEvent[]): string {
  const encoder = codec.createStreamEncoder({ streamUsage: true });
  return events.map((e) => encoder.encode(e)).join('');
}

/**
 * Problems of an SSE text in the Responses grammar: every payload a valid stream event named by
 * its own `type`, sequence numbers 0, 1, 2, ..., and at most one terminal event, last.
 */
export function streamProblems(text: string): string[] {
  const frames = sseFrames(text);
  if (frames.length === 0) return ['no events'];
  const problems: string[] = [];
  const terminal = new Set(['response.completed', 'response.incomplete', 'response.failed']);
  for (const [i, frame] of frames.entries()) {
    const payload = JSON.parse(frame.data) as { type?: string; sequence_number?: number };
    for (const e of schemaErrors(SCHEMAS.streamEvent, payload)) problems.push(`frame ${i}: ${e} in ${frame.data}`);
    if (frame.event !== payload.type) problems.push(`frame ${i}: event ${frame.event} carries type ${payload.type}`);
    if (payload.sequence_number !== i) problems.push(`frame ${i}: sequence_number ${payload.sequence_number}`);
    if (terminal.has(payload.type ?? '') && i !== frames.length - 1) problems.push(`frame ${i}: ${payload.type} before the end`);
  }
  return problems;
}

/** The JSON payloads of an SSE text, in order. */
export function payloads(text: string): { type: string; [key: string]: unknown }[] {
  return sseFrames(text).map((f) => JSON.parse(f.data) as { type: string });
}

/**
 * A response as far as it survives the Responses wire: the finish is told by status, so a stop
 * sequence, a pause or an unknown reason come back as a plain stop and running out of context as
 * running out of output tokens; the raw value is then the status the encoder wrote.
 */
export function survivingResponse(response: ChatResponse): ChatResponse {
  return { ...response, finish: { reason: SURVIVING_REASON[response.finish.reason] ?? response.finish.reason, raw: null } };
}

const SURVIVING_REASON: Partial<Record<ChatResponse['finish']['reason'], ChatResponse['finish']['reason']>> = {
  stop_sequence: 'stop',
  pause: 'stop',
  other: 'stop',
  context_exceeded: 'length',
};

export type SurvivingEvent = StreamEvent | { readonly type: 'error'; readonly error: Partial<GatewayError> };

/**
 * A stream as far as it survives: a refusal has already gone out as output text, so it comes back
 * as a content filter; the finish raw is ours; an in-stream error keeps its kind, message and
 * code (the status is the kind's usual one).
 */
export function survivingStream(events: readonly StreamEvent[]): SurvivingEvent[] {
  return events.map((event): SurvivingEvent => {
    if (event.type === 'finish') {
      const reason = event.finish.reason === 'refusal' ? 'content_filter' : (SURVIVING_REASON[event.finish.reason] ?? event.finish.reason);
      return { type: 'finish', finish: { reason, raw: null } };
    }
    if (event.type === 'error') return { type: 'error', error: { kind: event.error.kind, message: event.error.message, code: event.error.code ?? null } };
    return event;
  });
}

/**
 * A request IR as far as it survives an encode -> decode round trip through Responses: OpenAI wants
 * a detail level on every image, so an image without one comes back with `auto`. (`source`,
 * `unmapped` and `streamUsage` describe the client's side, not the request.)
 */
export function survivingRequest(request: ChatRequest): Omit<ChatRequest, 'source' | 'unmapped' | 'streamUsage'> {
  const { source: _source, unmapped: _unmapped, streamUsage: _streamUsage, ...rest } = request;
  const messages = rest.messages.map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'image' && b.detail === undefined ? { ...b, detail: 'auto' } : b)),
  }));
  return { ...rest, messages };
}
