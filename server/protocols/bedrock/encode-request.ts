import type { ChatRequest, ContentBlock, ImageBlock, TextBlock, ToolResultBlock } from '../../ir/index.ts';
import { SystemSlot } from '../shared/system-slot.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { isEmptyText } from '../shared/empty-text.ts';
import { dropped } from '../shared/warnings.ts';
import { cachePointFromControl } from './cache-point.ts';
import { formatFromMediaType } from './image-format.ts';
import { encodeReasoningFields, encodeTopK } from './model-fields.ts';
import { encodeResponseFormat } from './output-format.ts';
import { encodeToolConfig } from './tool-config.ts';
import type {
  ContentBlock as BedrockContentBlock,
  ImageBlock as BedrockImage,
  InferenceConfiguration as BedrockInferenceConfig,
  Message as BedrockMessage,
  SystemContentBlock as BedrockSystemBlock,
  ToolResultContentBlock as BedrockToolResultContent,
} from '../../../generated/protocols/bedrock/request.ts';

/**
 * IR to a Converse request body for one lane. Pure. The model and streaming are not in the body:
 * upstreamPath puts both in the path.
 */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  const warnings: TranslationWarning[] = [];
  const system: BedrockSystemBlock[] = [];
  const messages: BedrockMessage[] = [];
  const systemSlot = new SystemSlot('the top-level system prompt');

  request.messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'the message author name'));
    if (systemSlot.takes(message, path, warnings)) {
      message.content.forEach((block, j) => isEmptyText(block) || system.push(...encodeSystemBlock(block, `${path}.content[${j}]`, warnings)));
      return;
    }
    // A tool turn is a user turn of toolResult blocks; Bedrock wants user and assistant to alternate.
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.flatMap((block, j) => (isEmptyText(block) ? [] : encodeBlock(block, `${path}.content[${j}]`, warnings)));
    if (blocks.length === 0) return; // nothing left to send (see isEmptyText); the turns around it still alternate
    const last = messages.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  });

  const body: Record<string, unknown> = { messages };
  if (system.length > 0) body.system = system;
  const reasoning = encodeReasoningFields(request, lane.model, lane.defaultMaxTokens, warnings);
  const sampling = reasoning.sampling ?? { temperature: request.temperature, topP: request.topP, topK: request.topK };
  const inferenceConfig = encodeInferenceConfig(request, reasoning.maxTokens ?? request.maxTokens, sampling.temperature, sampling.topP);
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  const toolConfig = encodeToolConfig(request, warnings);
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  if (request.parallelToolCalls === false) warnings.push(dropped('parallel_tool_calls', 'the limit to one tool call per turn'));
  const topK = sampling.topK === undefined ? undefined : encodeTopK(sampling.topK, lane.model, warnings);
  if (topK !== undefined || reasoning.fields !== undefined) body.additionalModelRequestFields = { ...topK, ...reasoning.fields };
  const outputConfig = encodeResponseFormat(request, warnings);
  if (outputConfig !== undefined) body.outputConfig = outputConfig;
  if (request.user !== undefined) warnings.push(dropped('user', 'the end-user id'));
  if (request.seed !== undefined) warnings.push(dropped('seed', 'the sampling seed'));
  return { body, warnings };
}

function encodeInferenceConfig(
  request: ChatRequest,
  maxTokens: number | undefined,
  temperature: number | undefined,
  topP: number | undefined,
): BedrockInferenceConfig {
  // maxTokens stays optional: Bedrock fills in the model's own default.
  return {
    ...(maxTokens !== undefined && { maxTokens }),
    ...(temperature !== undefined && { temperature }),
    ...(topP !== undefined && { topP }),
    ...(request.stopSequences !== undefined && { stopSequences: [...request.stopSequences] }),
  };
}

function encodeSystemBlock(block: ContentBlock, path: string, warnings: TranslationWarning[]): BedrockSystemBlock[] {
  if (block.type !== 'text') throw unsupportedField(path, 'Bedrock', 'system prompts can only hold text');
  return encodeText(block, path, warnings);
}

/** A cache hint becomes a cachePoint block right after the text it closes. */
function encodeText(block: TextBlock, path: string, warnings: TranslationWarning[]): BedrockContentBlock[] {
  const text: BedrockContentBlock = { text: block.text };
  return block.cacheControl === undefined ? [text] : [text, cachePointFromControl(block.cacheControl, `${path}.cache_control`, warnings)];
}

function encodeBlock(block: ContentBlock, path: string, warnings: TranslationWarning[]): BedrockContentBlock[] {
  switch (block.type) {
    case 'text':
      return encodeText(block, path, warnings);
    case 'image':
      return [{ image: encodeImage(block, path, warnings) }];
    case 'tool_call':
      return [{ toolUse: { toolUseId: block.id, name: block.name, input: argumentsToObject(block.arguments, `${path}.arguments`) } }];
    case 'tool_result':
      return encodeToolResult(block, path, warnings);
    case 'reasoning':
      return encodeReasoning(block, path, warnings);
  }
}

/** Bedrock takes image bytes (or S3 objects) only; URLs are fetched before encoding (server/media/), unless media_fetch is off. */
function encodeImage(block: ImageBlock, path: string, warnings: TranslationWarning[]): BedrockImage {
  if (block.source.kind === 'url') {
    throw unsupportedField(`${path}.source.url`, 'Bedrock', 'Bedrock takes image bytes, not URLs, and media_fetch is off; send the image as base64 data');
  }
  const format = formatFromMediaType(block.source.mediaType);
  if (format === undefined)
    throw unsupportedField(`${path}.source.media_type`, 'Bedrock', `Bedrock takes png, jpeg, gif and webp images, not ${block.source.mediaType}`);
  if (block.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'image detail level'));
  return { format, source: { bytes: block.source.data } };
}

/**
 * toolResult content has no cachePoint member: a hint on the result's last text becomes a
 * cachePoint right after the toolResult block, which closes the same prefix. Elsewhere it is dropped.
 */
function encodeToolResult(block: ToolResultBlock, path: string, warnings: TranslationWarning[]): BedrockContentBlock[] {
  let cachePoint: BedrockContentBlock | undefined;
  // Bedrock refuses empty text blocks in a tool result as anywhere else (an empty result has no content blocks).
  const content = block.content.flatMap((part, k): BedrockToolResultContent[] => {
    const at = `${path}.content[${k}]`;
    if (part.type === 'image') return [{ image: encodeImage(part, at, warnings) }];
    if (part.cacheControl !== undefined) {
      if (k === block.content.length - 1) cachePoint = cachePointFromControl(part.cacheControl, `${at}.cache_control`, warnings);
      else warnings.push(dropped(`${at}.cache_control`, 'a prompt cache hint inside a tool result'));
    }
    return isEmptyText(part) ? [] : [{ text: part.text }];
  });
  // Only an error is flagged: several Bedrock models refuse `status` altogether.
  const result: BedrockContentBlock = { toolResult: { toolUseId: block.callId, content, ...(block.isError && { status: 'error' }) } };
  return cachePoint === undefined ? [result] : [result, cachePoint];
}

/** Signed or encrypted reasoning is only valid where it was issued: it is replayed to Bedrock only. */
function encodeReasoning(block: Extract<ContentBlock, { type: 'reasoning' }>, path: string, warnings: TranslationWarning[]): BedrockContentBlock[] {
  if (block.origin !== 'bedrock') {
    warnings.push(dropped(path, block.origin === undefined ? 'unsigned reasoning from another provider' : `reasoning signed by the ${block.origin} protocol`));
    return [];
  }
  const out: BedrockContentBlock[] = [];
  if (block.redacted === undefined || block.text !== '') {
    out.push({ reasoningContent: { reasoningText: { text: block.text, ...(block.signature !== undefined && { signature: block.signature }) } } });
  }
  if (block.redacted !== undefined) out.push({ reasoningContent: { redactedContent: block.redacted } });
  return out;
}
