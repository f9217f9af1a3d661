import type { ChatResponse, ContentBlock, Finish } from '../../ir/index.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { ResponseCallIds, responseIdOf } from './call-ids.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { GeminiResponse, Part as GeminiPart } from '../../../generated/protocols/gemini/response.ts';

/**
 * A GenerateContentResponse (upstream answer) to IR. Only the first candidate: the gateway never
 * asks for more. Parts with no IR form (code execution, non-image media) are skipped. A prompt
 * blocked before generation (promptFeedback.blockReason, no candidates) is a content filter with
 * no content, its raw reason the blockReason.
 */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const response = body as GeminiResponse;
  const id = responseIdOf(response);
  const candidate = response.candidates?.[0];
  const ids = new ResponseCallIds(id);
  const content = (candidate?.content?.parts ?? []).flatMap((part) => decodeResponsePart(part, ids));
  const blockReason = response.promptFeedback?.blockReason;
  const finish: Finish =
    candidate === undefined && typeof blockReason === 'string'
      ? { reason: 'content_filter', raw: blockReason }
      : decodeFinishReason(
          candidate?.finishReason,
          content.some((b) => b.type === 'tool_call'),
        );
  const created = typeof response.createTime === 'string' ? Date.parse(response.createTime) : Number.NaN;
  return {
    id,
    model: response.modelVersion ?? '',
    content,
    finish,
    usage: response.usageMetadata !== undefined ? decodeUsage(response.usageMetadata) : null,
    ...(!Number.isNaN(created) && { created: Math.floor(created / 1000) }),
  };
}

function decodeResponsePart(part: GeminiPart, ids: ResponseCallIds): ContentBlock[] {
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  const signed = signature !== undefined ? { signature: { origin: 'gemini' as const, value: signature } } : {};
  if (part.functionCall !== undefined && part.functionCall !== null) {
    const call = part.functionCall;
    return [{ type: 'tool_call', id: ids.call(call.name, call.id), name: call.name, arguments: argumentsFromObject(call.args ?? {}), ...signed }];
  }
  if (part.inlineData?.mimeType.startsWith('image/') === true) {
    return [{ type: 'image', source: { kind: 'base64', mediaType: part.inlineData.mimeType, data: part.inlineData.data } }];
  }
  if (typeof part.text !== 'string' && signature === undefined) return [];
  const text = part.text ?? '';
  if (part.thought === true) return [{ type: 'reasoning', text, origin: 'gemini', ...(signature !== undefined && { signature }) }];
  return [{ type: 'text', text, ...signed }];
}
