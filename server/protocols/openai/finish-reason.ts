import type { Finish, FinishReason } from '../../ir/index.ts';

const FROM_WIRE: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

const TO_WIRE: Record<FinishReason, string> = {
  stop: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  context_exceeded: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
  error: 'stop',
  other: 'stop',
};

export function decodeFinishReason(raw: string | null | undefined): Finish {
  if (raw === null || raw === undefined) return { reason: 'other', raw: null };
  return { reason: FROM_WIRE[raw] ?? 'other', raw };
}

/** OpenAI's `stop` merges natural end and stop sequence; a refusal reads as a content filter. */
export function encodeFinishReason(finish: Finish): string {
  return TO_WIRE[finish.reason];
}
