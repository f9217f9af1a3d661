import type { Finish, FinishReason } from '../../ir/index.ts';

/** Every finishReason of @google/genai 3.1.0 that the IR normalises to something other than `other`. */
const FROM_WIRE: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
};

/** The rest of the documented values: kept as raw, normalised to `other`. */
const OTHER_WIRE = new Set([
  'FINISH_REASON_UNSPECIFIED',
  'LANGUAGE',
  'OTHER',
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'NO_IMAGE',
  'IMAGE_OTHER',
  'CONTINUATION',
  'MALFORMED_RESPONSE',
]);

const TO_WIRE: Record<FinishReason, string> = {
  stop: 'STOP',
  stop_sequence: 'STOP',
  length: 'MAX_TOKENS',
  context_exceeded: 'MAX_TOKENS',
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
  refusal: 'SAFETY',
  pause: 'OTHER',
  error: 'OTHER',
  other: 'OTHER',
};

/**
 * A function call ends with STOP like any other turn, so `tool_calls` is read from the parts.
 * Gemini also says STOP when a stop sequence matched, without saying which: that reads as `stop`.
 */
export function decodeFinishReason(raw: string | null | undefined, hasToolCalls: boolean): Finish {
  if (raw === null || raw === undefined) return { reason: 'other', raw: null };
  if (raw === 'STOP' && hasToolCalls) return { reason: 'tool_calls', raw };
  return { reason: FROM_WIRE[raw] ?? 'other', raw };
}

/** A raw Gemini value that still means the same is written back as it was (RECITATION stays RECITATION). */
export function encodeFinishReason(finish: Finish): string {
  const raw = finish.raw;
  if (raw !== null && (raw in FROM_WIRE || OTHER_WIRE.has(raw)) && decodeFinishReason(raw, finish.reason === 'tool_calls').reason === finish.reason) {
    return raw;
  }
  return TO_WIRE[finish.reason];
}
