// What the Cohere codec tests share: the golden fixtures under test/fixtures/cohere/, the
// precompiled Cohere schemas, and a check of an SSE text against the v2 Chat stream grammar.
// (The shared walkers in ../support/ know only the OpenAI and Anthropic folders.)
import type { ValidateFunction } from 'ajv';
import cohereError from '../../../generated/validators/cohere-error.js';
import cohereRequest from '../../../generated/validators/cohere-request.js';
import cohereResponse from '../../../generated/validators/cohere-response.js';
import cohereStreamEvent from '../../../generated/validators/cohere-stream-event.js';
import type { StreamEvent } from '../../../server/ir/index.ts';
import type { LaneContext } from '../../../server/protocols/codec.ts';
import { cohereCodec } from '../../../server/protocols/cohere/index.ts';
import { decodeChunks } from '../support/codecs.ts';
import { sseFrames } from '../support/sse-frames.ts';
import { schemaErrors } from '../support/validators.ts';

export const codec = cohereCodec;
// A reasoning model, so the thinking scenario's setting is sent.
export const COHERE_LANE: LaneContext = { model: 'command-a-reasoning-08-2025', defaultMaxTokens: 2048 };

export const SCHEMAS: Readonly<Record<'request' | 'response' | 'streamEvent' | 'error', ValidateFunction>> = {
  request: cohereRequest,
  response: cohereResponse,
  streamEvent: cohereStreamEvent,
  error: cohereError,
};

export { hasFile, readBytes, readJson, scenariosIn as scenariosOf } from '../support/fixtures.ts';

/** Feeds `chunks` to a fresh Cohere stream decoder, then ends it. */
export const decodeStream = (chunks: Iterable<Uint8Array>): StreamEvent[] => decodeChunks(codec.createStreamDecoder(), chunks);

export function encodeStream(events: readonly StreamEvent[]): { text: string; warnings: readonly unknown[] } {
  const encoder = codec.createStreamEncoder({ streamUsage: true });
  const text = events.map((event) => encoder.encode(event)).join('');
  return { text: typeof text === 'string' ? text : '', warnings: encoder.warnings };
}

/**
 * Problems of an SSE text in the v2 Chat grammar: every event is named after its payload's type
 * and valid, message-end comes once and last (a `[DONE]` may follow it). `[]` when all is well.
 */
export function streamProblems(text: string): string[] {
  const frames = sseFrames(text);
  if (frames.length === 0) return ['no events'];
  const problems: string[] = [];
  let ended = false;
  for (const [i, frame] of frames.entries()) {
    if (frame.data === '[DONE]') {
      if (!ended || i !== frames.length - 1) problems.push(`frame ${i}: [DONE] only belongs after message-end, at the very end`);
      continue;
    }
    if (ended) problems.push(`frame ${i}: an event after message-end`);
    const payload = JSON.parse(frame.data) as { type?: string };
    for (const error of schemaErrors(SCHEMAS.streamEvent, payload)) problems.push(`frame ${i}: ${error} in ${frame.data}`);
    if (frame.event !== payload.type) problems.push(`frame ${i}: event ${frame.event} carries type ${payload.type}`);
    if (payload.type === 'message-end') ended = true;
  }
  if (!ended) problems.push('no message-end');
  return problems;
}
