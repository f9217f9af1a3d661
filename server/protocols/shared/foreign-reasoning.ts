import type { ContentBlock, ProtocolId, StreamBlockStart } from '../../ir/index.ts';

/**
 * Reasoning issued by another protocol than `own`: a client would replay it to an upstream that
 * cannot verify it, so encoders drop it with a warning. Reasoning of unknown origin is kept.
 */
export function isForeignReasoning<B extends ContentBlock | StreamBlockStart>(block: B, own: ProtocolId): block is B & { readonly origin: ProtocolId } {
  return (block.type === 'reasoning' || block.type === 'redacted_reasoning') && block.origin !== undefined && block.origin !== own;
}
