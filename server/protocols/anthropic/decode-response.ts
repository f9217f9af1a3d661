import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import { isType } from '../shared/schema-branch.ts';
import type { AnthropicResponse as AnthropicMessageResponse } from '../../../generated/protocols/anthropic/response.ts';

/** A Messages response (upstream answer) to IR. Server-tool blocks have no IR form and are skipped. */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const message = body as unknown as AnthropicMessageResponse;
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (isType(block, 'text')) content.push({ type: 'text', text: block.text });
    else if (isType(block, 'tool_use')) content.push({ type: 'tool_call', id: block.id, name: block.name, arguments: argumentsFromObject(block.input) });
    else if (isType(block, 'thinking')) content.push({ type: 'reasoning', text: block.thinking, signature: block.signature, origin: 'anthropic' });
    else if (isType(block, 'redacted_thinking')) content.push({ type: 'reasoning', text: '', redacted: block.data, origin: 'anthropic' });
  }
  return {
    id: message.id,
    model: message.model,
    content,
    finish: decodeFinishReason(message.stop_reason, message.stop_sequence),
    usage: message.usage ? decodeUsage(message.usage) : null,
  };
}
