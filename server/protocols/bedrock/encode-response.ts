import { ZERO_USAGE, type ChatResponse } from '../../ir/index.ts';
import type { EncodedResponse, TranslationWarning } from '../codec.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { isForeignReasoning } from '../shared/foreign-reasoning.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeFinishReason, stopSequenceFields } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { BedrockResponse as BedrockConverseResponse, ContentBlock as BedrockContentBlock } from '../../../generated/protocols/bedrock/response.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';
import { siblingThinking } from '../shared/thinking-carrier.ts';

/**
 * IR response to the Converse response a client expects. The gateway does not time the model
 * alone, so `metrics.latencyMs` is 0.
 */
export function encodeResponse(response: ChatResponse): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const content: BedrockContentBlock[] = [];
  response.content.forEach((block, i) => {
    const carried = block.type === 'reasoning' ? siblingThinking(block, 'bedrock') : undefined;
    if (block.type === 'text') content.push({ text: block.text });
    else if (block.type === 'tool_call') {
      content.push({
        toolUse: {
          toolUseId: idWithSignature(block.id, block.signature),
          name: block.name,
          input: argumentsToObject(block.arguments, `content[${i}].arguments`, 'upstream'),
        },
      });
    } else if (block.type === 'reasoning' && carried !== undefined) {
      // Claude's thinking from Anthropic, carried as the signature so the client can send it back there.
      content.push(
        block.redacted !== undefined
          ? { reasoningContent: { redactedContent: carried } }
          : { reasoningContent: { reasoningText: { text: block.text, signature: carried } } },
      );
    } else if (isForeignReasoning(block, 'bedrock')) {
      // A client would replay it as Bedrock reasoning, which no Bedrock model could verify.
      warnings.push(dropped(`content[${i}]`, `reasoning from the ${block.origin} protocol`));
    } else if (block.type === 'reasoning') {
      if (block.redacted === undefined || block.text !== '') {
        content.push({ reasoningContent: { reasoningText: { text: block.text, ...(block.signature !== undefined && { signature: block.signature }) } } });
      }
      if (block.redacted !== undefined) content.push({ reasoningContent: { redactedContent: block.redacted } });
    } else warnings.push(dropped(`content[${i}]`, `${block.type} block`));
  });
  const fields = stopSequenceFields(response.finish, false);
  const body: BedrockConverseResponse = {
    output: { message: { role: 'assistant', content } },
    stopReason: encodeFinishReason(response.finish),
    usage: encodeUsage(response.usage ?? ZERO_USAGE),
    metrics: { latencyMs: 0 },
    ...(fields !== undefined && { additionalModelResponseFields: fields }),
  };
  return { body: body as unknown as Record<string, unknown>, warnings };
}
