import type { Finish, FinishReason } from '../../ir/index.ts';

const FROM_WIRE: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop_sequence',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  model_context_window_exceeded: 'context_exceeded',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
};

const TO_WIRE: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  context_exceeded: 'model_context_window_exceeded',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
  // Claude's refusals reach Bedrock clients as content_filtered: Bedrock has no refusal reason.
  refusal: 'content_filtered',
  pause: 'end_turn',
  error: 'end_turn',
  other: 'end_turn',
};

/**
 * Bedrock does not say which stop sequence matched; Claude models do, in
 * `additionalModelResponseFields.stop_sequence` (`.delta.stop_sequence` in a stream), so
 * `stopSequence` is set only when that member is there.
 */
export function decodeFinishReason(raw: string | null | undefined, fields: Record<string, unknown> | undefined): Finish {
  if (raw === null || raw === undefined) return { reason: 'other', raw: null };
  const stopSequence = matchedStopSequence(fields);
  return { reason: FROM_WIRE[raw] ?? 'other', raw, ...(stopSequence !== undefined && { stopSequence }) };
}

function matchedStopSequence(fields: Record<string, unknown> | undefined): string | null | undefined {
  const delta = fields?.delta as Record<string, unknown> | undefined;
  for (const holder of [fields, delta]) {
    const value = holder?.stop_sequence;
    if (typeof value === 'string' || value === null) return value;
  }
  return undefined;
}

/** The raw reason is kept when it is Bedrock's own word for the same thing (guardrail_intervened). */
export function encodeFinishReason(finish: Finish): string {
  if (finish.raw !== null && FROM_WIRE[finish.raw] === finish.reason) return finish.raw;
  return TO_WIRE[finish.reason];
}

/** Where a Claude-on-Bedrock client looks for the matched stop sequence; absent when unknown. */
export function stopSequenceFields(finish: Finish, stream: boolean): Record<string, unknown> | undefined {
  if (finish.stopSequence === undefined) return undefined;
  const fields = { stop_sequence: finish.stopSequence };
  return stream ? { delta: fields } : fields;
}
