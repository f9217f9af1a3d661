import type { ProtocolId, ReasoningBlock } from '../../ir/index.ts';
import type { ResponsesReasoningItem } from './wire.ts';
import { thinkingFromCarrier } from '../shared/thinking-carrier.ts';

/** Between summary parts in the IR text; the stream decoder inserts the same between parts. */
export const SUMMARY_PART_SEPARATOR = '\n\n';

/**
 * A reasoning item (in a request's input or a response's output) to IR: the summary parts joined
 * are the readable text, raw reasoning text standing in only when there is no summary;
 * `encrypted_content` and the item id are OpenAI's and travel untouched.
 */
export function reasoningBlock(item: ResponsesReasoningItem): ReasoningBlock {
  // Claude's thinking, carried through a Responses client by the gateway (shared/thinking-carrier.ts).
  const carried = typeof item.encrypted_content === 'string' ? thinkingFromCarrier(item.encrypted_content) : undefined;
  if (carried !== undefined) return carried;
  const summary = item.summary.map((s) => s.text).join(SUMMARY_PART_SEPARATOR);
  return {
    type: 'reasoning',
    text: summary !== '' ? summary : (item.content ?? []).map((c) => c.text).join(SUMMARY_PART_SEPARATOR),
    ...(typeof item.encrypted_content === 'string' && { redacted: item.encrypted_content }),
    origin: 'responses',
    id: item.id,
  };
}

/**
 * What a dropped warning calls reasoning that OpenAI did not issue: only OpenAI can continue from
 * a reasoning item, so anyone else's is neither replayed nor shown as one.
 */
export function foreignReasoning(origin: ProtocolId | undefined): string {
  return origin === undefined ? 'unsigned reasoning from another provider' : `reasoning issued by the ${origin} protocol`;
}
