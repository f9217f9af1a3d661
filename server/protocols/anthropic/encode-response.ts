import { ZERO_USAGE, type ChatResponse } from '../../ir/index.ts';
import type { EncodedResponse, TranslationWarning } from '../codec.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { isForeignReasoning } from '../shared/foreign-reasoning.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { AnthropicResponse as AnthropicMessageResponse, ContentBlock as AnthropicBlock } from '../../../generated/protocols/anthropic/response.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';
import { siblingThinking } from '../shared/thinking-carrier.ts';

/** IR response to the Messages response a client expects. */
export function encodeResponse(response: ChatResponse): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const content: AnthropicBlock[] = [];
  response.content.forEach((block, i) => {
    const carried = block.type === 'reasoning' ? siblingThinking(block, 'anthropic') : undefined;
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_call') {
      content.push({
        type: 'tool_use',
        id: idWithSignature(block.id, block.signature),
        name: block.name,
        input: argumentsToObject(block.arguments, `content[${i}].arguments`, 'upstream'),
      });
    } else if (block.type === 'reasoning' && carried !== undefined) {
      // Claude's thinking from Bedrock, carried as the signature so the client can send it back there.
      content.push(
        block.redacted !== undefined ? { type: 'redacted_thinking', data: carried } : { type: 'thinking', thinking: block.text, signature: carried },
      );
    } else if (isForeignReasoning(block, 'anthropic')) {
      // No Anthropic upstream could verify it if the client replayed it as a thinking block.
      warnings.push(dropped(`content[${i}]`, `reasoning from the ${block.origin} protocol`));
    } else if (block.type === 'reasoning' && block.redacted !== undefined) {
      content.push({ type: 'redacted_thinking', data: block.redacted });
    } else if (block.type === 'reasoning') {
      content.push({ type: 'thinking', thinking: block.text, signature: block.signature ?? '' });
    } else warnings.push(dropped(`content[${i}]`, `${block.type} block`));
  });
  const body: AnthropicMessageResponse = {
    id: response.id,
    type: 'message',
    role: 'assistant',
    model: response.model,
    content,
    ...encodeFinishReason(response.finish),
    usage: encodeUsage(response.usage ?? ZERO_USAGE),
  };
  return { body: body as unknown as Record<string, unknown>, warnings };
}
