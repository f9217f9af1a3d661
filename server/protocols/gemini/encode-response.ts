import type { ChatResponse, ContentBlock, ProtocolId } from '../../ir/index.ts';
import type { EncodedResponse, TranslationWarning } from '../codec.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { dropped } from '../shared/warnings.ts';
import { imagePart, signatureOf } from './encode-parts.ts';
import { carriableThinking } from '../shared/thinking-carrier.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { Candidate as GeminiCandidate, GeminiResponse, Part as GeminiPart } from '../../../generated/protocols/gemini/response.ts';

/**
 * IR response to the GenerateContentResponse a client expects. A content filter with no content
 * is written as a candidate with that finishReason (Gemini's form for a blocked answer), whether
 * the upstream blocked the prompt or the answer.
 */
export function encodeResponse(response: ChatResponse): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const parts: GeminiPart[] = [];
  // Claude's signed thinking, to ride on the next function call's thoughtSignature (shared/thinking-carrier.ts).
  let thinking: PendingThinking | undefined;
  response.content.forEach((block, i) => {
    const path = `content[${i}]`;
    const carried = block.type === 'reasoning' ? carriableThinking(block) : undefined;
    if (block.type === 'reasoning' && carried !== undefined) {
      if (thinking !== undefined) warnings.push(unattached(thinking));
      thinking = { value: carried, path: block.redacted !== undefined ? `${path}.redacted` : `${path}.signature`, origin: block.origin };
    }
    // The thought text is still shown; its proof travels in the carrier instead.
    const shown: ContentBlock | undefined =
      block.type !== 'reasoning' || carried === undefined ? block : block.text === '' ? undefined : { type: 'reasoning', text: block.text };
    const part = shown === undefined ? undefined : encodeResponseBlock(shown, path, warnings);
    if (part !== undefined && part.functionCall !== undefined && part.thoughtSignature === undefined && thinking !== undefined) {
      part.thoughtSignature = thinking.value;
      thinking = undefined;
    }
    if (part !== undefined) parts.push(part);
  });
  if (thinking !== undefined) warnings.push(unattached(thinking));
  const candidate: GeminiCandidate = {
    ...(parts.length > 0 && { content: { role: 'model', parts } }),
    finishReason: encodeFinishReason(response.finish),
    index: 0,
  };
  const body: GeminiResponse = {
    candidates: [candidate],
    ...(response.usage !== null && { usageMetadata: encodeUsage(response.usage) }),
    ...(response.model !== '' && { modelVersion: response.model }),
    ...(response.id !== '' && { responseId: response.id }),
    ...(response.created !== undefined && { createTime: new Date(response.created * 1000).toISOString() }),
  };
  return { body: body as Record<string, unknown>, warnings };
}

/** One IR block as one part. Function calls carry no id: Gemini pairs their results by name. */
export function encodeResponseBlock(block: ChatResponse['content'][number], path: string, warnings: TranslationWarning[]): GeminiPart | undefined {
  switch (block.type) {
    case 'text':
      return { text: block.text, ...signatureOf(block.signature, path, warnings) };
    case 'tool_call':
      return {
        functionCall: { name: block.name, args: argumentsToObject(block.arguments, `${path}.arguments`, 'upstream') },
        ...signatureOf(block.signature, path, warnings),
      };
    case 'image':
      return imagePart(block, path, warnings);
    case 'reasoning': {
      if (block.redacted !== undefined) warnings.push(dropped(`${path}.redacted`, 'encrypted reasoning'));
      if (block.redacted !== undefined && block.text === '') return undefined;
      const replay = block.signature !== undefined && block.origin === 'gemini';
      if (block.signature !== undefined && !replay)
        warnings.push(dropped(`${path}.signature`, `a reasoning signature issued by the ${block.origin ?? 'unknown'} protocol`));
      return { text: block.text, thought: true, ...(replay && { thoughtSignature: block.signature }) };
    }
    case 'tool_result':
      warnings.push(dropped(path, 'a tool result in an answer'));
      return undefined;
  }
}

/** Claude's thinking waiting for a function call to carry it (shared/thinking-carrier.ts). */
export interface PendingThinking {
  readonly value: string;
  readonly path: string;
  readonly origin: ProtocolId | undefined;
}

/** No function call followed (Claude needs its thinking back only in tool loops): the proof is dropped. */
export function unattached(thinking: PendingThinking): TranslationWarning {
  return dropped(thinking.path, `a reasoning signature issued by the ${thinking.origin ?? 'unknown'} protocol (carried only on a function call)`);
}
