import type { ChatResponse } from '../../ir/index.ts';
import type { EncodedResponse, TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage, usageWarnings } from './usage.ts';
import type { AssistantMessage as CohereResponseMessage, CohereResponse as CohereChatResponse } from '../../../generated/protocols/cohere/response.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/**
 * IR response to the v2 Chat response a client expects. Text before the first tool call is the
 * tool plan, as in requests. The body has no model or creation time to fill in.
 */
export function encodeResponse(response: ChatResponse): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const firstCall = response.content.findIndex((block) => block.type === 'tool_call');
  const plan: string[] = [];
  const thinking: NonNullable<CohereResponseMessage['content']> = [];
  const texts: NonNullable<CohereResponseMessage['content']> = [];
  const calls: NonNullable<CohereResponseMessage['tool_calls']> = [];
  response.content.forEach((block, i) => {
    const path = `content[${i}]`;
    if (block.type === 'text') {
      if (i < firstCall) plan.push(block.text);
      else texts.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_call') {
      calls.push({ id: idWithSignature(block.id, block.signature), type: 'function', function: { name: block.name, arguments: block.arguments } });
    } else if (block.type === 'reasoning') {
      if (block.signature !== undefined) warnings.push(dropped(`${path}.signature`, 'the reasoning signature'));
      if (block.redacted !== undefined) warnings.push(dropped(`${path}.redacted`, 'encrypted reasoning'));
      if (block.text !== '') thinking.push({ type: 'thinking', thinking: block.text });
    } else warnings.push(dropped(path, `${block.type} block`));
  });
  const message: CohereResponseMessage = { role: 'assistant' };
  if (thinking.length + texts.length > 0) message.content = [...thinking, ...texts];
  if (plan.length > 0) message.tool_plan = plan.join('');
  if (calls.length > 0) message.tool_calls = calls;
  const body: CohereChatResponse = {
    id: response.id,
    finish_reason: encodeFinishReason(response.finish),
    message,
    ...(response.usage !== null && { usage: encodeUsage(response.usage) }),
  };
  if (response.usage !== null) warnings.push(...usageWarnings(response.usage));
  return { body: body as unknown as Record<string, unknown>, warnings };
}
