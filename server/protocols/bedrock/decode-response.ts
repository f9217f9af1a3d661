import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { BedrockResponse as BedrockConverseResponse, ContentBlock as BedrockContentBlock } from '../../../generated/protocols/bedrock/response.ts';

/**
 * A Converse response (upstream answer) to IR. The body names neither the response nor the model:
 * the id is '' (the request id travels in the `x-amzn-requestid` header) and the model is '' (it
 * is the lane's, from the path). Blocks with no IR form (citations metadata, images) are skipped.
 */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const response = body as unknown as BedrockConverseResponse;
  const content = (response.output.message?.content ?? []).flatMap(decodeBlock);
  return {
    id: '',
    model: '',
    content,
    finish: decodeFinishReason(response.stopReason, response.additionalModelResponseFields),
    usage: response.usage ? decodeUsage(response.usage) : null,
  };
}

function decodeBlock(block: BedrockContentBlock): ContentBlock[] {
  if (typeof block.text === 'string') return [{ type: 'text', text: block.text }];
  if (block.toolUse !== undefined) {
    return [{ type: 'tool_call', id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: argumentsFromObject(block.toolUse.input) }];
  }
  const reasoning = block.reasoningContent;
  if (reasoning?.reasoningText !== undefined) {
    const { text, signature } = reasoning.reasoningText;
    return [{ type: 'reasoning', text, ...(signature !== undefined && { signature }), origin: 'bedrock' }];
  }
  if (reasoning?.redactedContent !== undefined) return [{ type: 'reasoning', text: '', redacted: reasoning.redactedContent, origin: 'bedrock' }];
  // Cited answers: the text is the answer; the citations themselves have no IR slot.
  if (block.citationsContent !== undefined) {
    return (block.citationsContent.content ?? []).flatMap((part) => (typeof part.text === 'string' ? [{ type: 'text' as const, text: part.text }] : []));
  }
  return [];
}
