import type { ProtocolId } from '../ir/index.ts';
import { setMemberNumber } from './passthrough.ts';

/**
 * Where each protocol's request carries its output-token limit: a top-level member, or a member of
 * a top-level object. OpenAI's is `max_completion_tokens` (what the OpenAI encoder writes; the
 * older `max_tokens` is refused by reasoning models).
 */
export const OUTPUT_LIMIT_FIELD: Readonly<Record<ProtocolId, { readonly parent?: string; readonly key: string }>> = {
  openai: { key: 'max_completion_tokens' },
  responses: { key: 'max_output_tokens' },
  anthropic: { key: 'max_tokens' },
  gemini: { parent: 'generationConfig', key: 'maxOutputTokens' },
  bedrock: { parent: 'inferenceConfig', key: 'maxTokens' },
  cohere: { key: 'max_tokens' },
};

/**
 * A same-protocol request body that sent no output-token limit, with `limit` added where its
 * protocol keeps it (bytes otherwise untouched). Under a budget the reservation assumed this limit,
 * so the upstream must be held to it for the budget to be a hard cap.
 */
export function withOutputLimit(body: Buffer, protocol: ProtocolId, limit: number): Buffer {
  return setMemberNumber(body, OUTPUT_LIMIT_FIELD[protocol], limit);
}
