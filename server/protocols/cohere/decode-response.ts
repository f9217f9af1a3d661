import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { CohereResponse as CohereChatResponse } from '../../../generated/protocols/cohere/response.ts';

/**
 * A v2 Chat response (upstream answer) to IR, in the order decode-request uses for assistant
 * turns: thinking, tool plan, tool calls, text. Citations have no IR slot and are left out; the
 * response names no model.
 */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const response = body as unknown as CohereChatResponse;
  const message = response.message;
  const parts = message.content ?? [];
  const content: ContentBlock[] = [];
  for (const part of parts) {
    if (part.type === 'thinking') content.push({ type: 'reasoning', text: (part as { thinking: string }).thinking, origin: 'cohere' });
  }
  if (typeof message.tool_plan === 'string' && message.tool_plan !== '') content.push({ type: 'text', text: message.tool_plan });
  for (const call of message.tool_calls ?? []) {
    content.push({ type: 'tool_call', id: call.id, name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' });
  }
  for (const part of parts) {
    if (part.type === 'text') content.push({ type: 'text', text: (part as { text: string }).text });
  }
  return {
    id: response.id,
    model: '',
    content,
    finish: decodeFinishReason(response.finish_reason),
    usage: response.usage !== undefined ? decodeUsage(response.usage) : null,
  };
}
