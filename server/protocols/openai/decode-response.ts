import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { isType } from '../shared/schema-branch.ts';
import { decodeUsage } from './usage.ts';
import type { OpenAIResponse as OpenAIChatCompletion } from '../../../generated/protocols/openai/response.ts';

/** A chat.completion (upstream answer) to IR. Only the first choice: the gateway never asks for more. */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const completion = body as unknown as OpenAIChatCompletion;
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: ContentBlock[] = [];
  if (typeof message?.reasoning_content === 'string' && message.reasoning_content !== '') {
    content.push({ type: 'reasoning', text: message.reasoning_content });
  }
  if (typeof message?.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  const refusal = typeof message?.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
  if (refusal !== undefined) content.push({ type: 'text', text: refusal });
  for (const call of message?.tool_calls ?? []) {
    // The gateway sends an OpenAI upstream function tools only, so no other call type can answer.
    if (!isType(call, 'function')) throw new Error(`OpenAI upstream answered with a "${call.type}" tool call, which the gateway never offered`);
    content.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  const finish = decodeFinishReason(choice?.finish_reason);
  return {
    id: completion.id,
    model: completion.model,
    content,
    finish: refusal !== undefined ? { reason: 'refusal', raw: finish.raw } : finish,
    usage: completion.usage ? decodeUsage(completion.usage) : null,
    ...(typeof completion.created === 'number' && { created: completion.created }),
  };
}
