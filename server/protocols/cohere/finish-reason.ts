import type { Finish, FinishReason } from '../../ir/index.ts';

const FROM_WIRE: Record<string, FinishReason> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop_sequence',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
  ERROR: 'error',
  // The provider cut the generation at its time limit: the answer is incomplete, not finished.
  TIMEOUT: 'error',
};

const TO_WIRE: Record<FinishReason, string> = {
  stop: 'COMPLETE',
  stop_sequence: 'STOP_SEQUENCE',
  length: 'MAX_TOKENS',
  // Cohere documents MAX_TOKENS for output that ran into the context length too.
  context_exceeded: 'MAX_TOKENS',
  tool_calls: 'TOOL_CALL',
  // Cohere has no refusal or filter reason: the refusal text is the answer.
  content_filter: 'COMPLETE',
  refusal: 'COMPLETE',
  pause: 'COMPLETE',
  error: 'ERROR',
  other: 'COMPLETE',
};

/** Cohere never says which stop sequence matched, so `stopSequence` stays unset. */
export function decodeFinishReason(raw: string | null | undefined): Finish {
  if (raw === null || raw === undefined) return { reason: 'other', raw: null };
  return { reason: FROM_WIRE[raw] ?? 'other', raw };
}

/** The raw value is replayed when it is Cohere's own and still means the same (TIMEOUT stays TIMEOUT). */
export function encodeFinishReason(finish: Finish): string {
  if (finish.raw !== null && FROM_WIRE[finish.raw] === finish.reason) return finish.raw;
  return TO_WIRE[finish.reason];
}
