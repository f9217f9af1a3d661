import type { Finish, FinishReason } from '../../ir/index.ts';

const FROM_WIRE: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop_sequence',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'context_exceeded',
};

const TO_WIRE: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  context_exceeded: 'model_context_window_exceeded',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  refusal: 'refusal',
  pause: 'pause_turn',
  error: 'end_turn',
  other: 'end_turn',
};

export function decodeFinishReason(raw: string | null | undefined, stopSequence?: string | null): Finish {
  if (raw === null || raw === undefined) return { reason: 'other', raw: null };
  return { reason: FROM_WIRE[raw] ?? 'other', raw, ...(stopSequence !== undefined && { stopSequence }) };
}

/**
 * `stop_sequence` is only claimed when the upstream said which sequence matched; otherwise an
 * OpenAI `stop` reads as a natural end.
 */
export function encodeFinishReason(finish: Finish): { stop_reason: string; stop_sequence: string | null } {
  if (finish.reason === 'stop_sequence' && typeof finish.stopSequence === 'string') {
    return { stop_reason: 'stop_sequence', stop_sequence: finish.stopSequence };
  }
  const reason = finish.reason === 'stop_sequence' ? 'end_turn' : TO_WIRE[finish.reason];
  return { stop_reason: reason, stop_sequence: null };
}
