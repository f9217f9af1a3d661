import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { AnthropicMessageResponse } from './wire.ts';

/** A Messages response (upstream answer) to IR. Server-tool blocks have no IR form and are skipped. */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const message = body as unknown as AnthropicMessageResponse;
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use') content.push({ type: 'tool_call', id: block.id, name: block.name, arguments: argumentsFromObject(block.input) });
    else if (block.type === 'thinking') content.push({ type: 'reasoning', text: block.thinking, signature: block.signature, origin: 'anthropic' });
    else if (block.type === 'redacted_thinking') content.push({ type: 'reasoning', text: '', redacted: block.data, origin: 'anthropic' });
  }
  return {
    id: message.id,
    model: message.model,
    content,
    finish: decodeFinishReason(message.stop_reason, message.stop_sequence),
    usage: message.usage ? decodeUsage(message.usage) : null,
  };
}
