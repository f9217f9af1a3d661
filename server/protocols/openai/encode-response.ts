import type { ChatResponse } from '../../ir/index.ts';
import type { EncodedResponse, TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { AssistantMessage as OpenAIResponseMessage, OpenAIResponse as OpenAIChatCompletion } from '../../../generated/protocols/openai/response.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/** IR response to the chat.completion a client expects. */
export function encodeResponse(response: ChatResponse): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const texts: string[] = [];
  const reasoning: string[] = [];
  const message: OpenAIResponseMessage = { role: 'assistant', content: null, refusal: null };
  const toolCalls: NonNullable<OpenAIResponseMessage['tool_calls']> = [];
  response.content.forEach((block, i) => {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_call') {
      toolCalls.push({ id: idWithSignature(block.id, block.signature), type: 'function', function: { name: block.name, arguments: block.arguments } });
    } else if (block.type === 'reasoning') {
      // `reasoning_content`: where OpenAI-compatible clients read reasoning. Proofs have no place.
      if (block.text !== '') reasoning.push(block.text);
      if (block.signature !== undefined) warnings.push(dropped(`content[${i}].signature`, 'the reasoning signature'));
      if (block.redacted !== undefined) warnings.push(dropped(`content[${i}].redacted`, 'encrypted reasoning'));
    } else warnings.push(dropped(`content[${i}]`, `${block.type} block`));
  });
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
  if (response.finish.reason === 'refusal') message.refusal = texts.join('');
  else if (texts.length > 0) message.content = texts.join('');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: OpenAIChatCompletion = {
    id: response.id,
    object: 'chat.completion',
    created: response.created ?? Math.floor(Date.now() / 1000),
    model: response.model,
    choices: [{ index: 0, message, finish_reason: encodeFinishReason(response.finish), logprobs: null }],
    ...(response.usage !== null && { usage: encodeUsage(response.usage) }),
  };
  return { body: body as unknown as Record<string, unknown>, warnings };
}
