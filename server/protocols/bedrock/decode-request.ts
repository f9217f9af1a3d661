import type { ChatRequest, ContentBlock, ImageBlock, Message, TextBlock, ToolChoice, ToolDefinition, UnmappedField } from '../../ir/index.ts';
import type { RequestOrigin } from '../codec.ts';
import { invalidField } from '../shared/invalid-field.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { cacheControlFromPoint } from './cache-point.ts';
import { mediaTypeFromFormat } from './image-format.ts';
import { decodeModelFields } from './model-fields.ts';
import { decodeOutputConfig } from './output-format.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type {
  BedrockRequest,
  CachePointBlock as BedrockCachePoint,
  ContentBlock as BedrockContentBlock,
  GuardContentBlock,
  ImageBlock as BedrockImage,
  Message as BedrockMessage,
  SystemContentBlock as BedrockSystemBlock,
  ToolChoice as BedrockToolChoice,
  ToolConfiguration as BedrockToolConfig,
  ToolResultBlock as BedrockToolResult,
} from '../../../generated/protocols/bedrock/request.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { thinkingFromCarrier } from '../shared/thinking-carrier.ts';

/**
 * Converse request (schema-validated) to IR. The model and the stream flag come from the path
 * (`/model/{modelId}/converse` or `/converse-stream`), never from the body.
 */
export function decodeRequest(body: Record<string, unknown>, origin: RequestOrigin): ChatRequest {
  if (origin.pathModel === undefined || origin.pathModel === '') {
    throw invalidField('modelId', 'Bedrock names the model in the path: /model/{modelId}/converse');
  }
  const request = validatedRequest<BedrockRequest>(body);
  if (!Array.isArray(request.messages)) {
    throw invalidField('messages', 'a request without messages (a Bedrock-managed prompt) cannot be translated', 'unsupported_parameter');
  }
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages: Message[] = [];
  if (request.system !== undefined && request.system.length > 0) messages.push(decodeSystem(request.system, 'system', unmapped));
  request.messages.forEach((m, i) => messages.push(...decodeMessage(m, `messages[${i}]`, unmapped)));

  const inference = request.inferenceConfig ?? {};
  const toolConfig = request.toolConfig;
  const { topK, reasoning } = decodeModelFields(request.additionalModelRequestFields, unmapped);
  const responseFormat = decodeOutputConfig(request.outputConfig, unmapped);
  return {
    model: origin.pathModel,
    messages,
    stream: origin.pathStream === true,
    // ConverseStream always ends with a metadata event carrying usage.
    streamUsage: true,
    ...(toolConfig !== undefined && { tools: decodeTools(toolConfig, unmapped) }),
    ...(toolConfig?.toolChoice !== undefined && { toolChoice: decodeToolChoice(toolConfig.toolChoice) }),
    ...(typeof inference.maxTokens === 'number' && { maxTokens: inference.maxTokens }),
    ...(Array.isArray(inference.stopSequences) && { stopSequences: inference.stopSequences }),
    ...(typeof inference.temperature === 'number' && { temperature: inference.temperature }),
    ...(typeof inference.topP === 'number' && { topP: inference.topP }),
    ...(topK !== undefined && { topK }),
    ...(responseFormat !== undefined && { responseFormat }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'bedrock',
    unmapped,
  };
}

/** The block a following cachePoint refers to: where it landed in the IR. */
interface Placed {
  readonly list: ContentBlock[];
  readonly index: number;
}

/**
 * A cachePoint closes the cacheable prefix at the block before it. The IR keeps that as the
 * cache hint of a text block (or of the last text of a tool result); anywhere else it is reported.
 */
function attachCachePoint(placed: Placed | undefined, point: BedrockCachePoint): boolean {
  const block = placed?.list[placed.index];
  if (placed === undefined || block === undefined) return false;
  const cacheControl = cacheControlFromPoint(point);
  if (block.type === 'text' && block.cacheControl === undefined) {
    placed.list[placed.index] = { ...block, cacheControl };
    return true;
  }
  const last = block.type === 'tool_result' ? block.content.at(-1) : undefined;
  if (block.type === 'tool_result' && last?.type === 'text' && last.cacheControl === undefined) {
    placed.list[placed.index] = { ...block, content: [...block.content.slice(0, -1), { ...last, cacheControl }] };
    return true;
  }
  return false;
}

function cachePointUnmapped(path: string, point: BedrockCachePoint): UnmappedField {
  return { path, value: point, disposition: 'warn', reason: 'prompt cache point' };
}

function decodeSystem(blocks: BedrockSystemBlock[], path: string, unmapped: UnmappedField[]): Message {
  const content: ContentBlock[] = [];
  let placed: Placed | undefined;
  blocks.forEach((block, j) => {
    const at = `${path}[${j}]`;
    if (block.cachePoint !== undefined) {
      if (!attachCachePoint(placed, block.cachePoint)) unmapped.push(cachePointUnmapped(`${at}.cachePoint`, block.cachePoint));
      placed = undefined;
      return;
    }
    content.push(decodeSystemText(block, at, unmapped));
    placed = { list: content, index: content.length - 1 };
  });
  return { role: 'system', content };
}

function decodeSystemText(block: BedrockSystemBlock | BedrockContentBlock, at: string, unmapped: UnmappedField[]): TextBlock {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.guardContent !== undefined) return decodeGuardContent(block.guardContent, `${at}.guardContent`, unmapped);
  throw invalidField(at, `system block "${Object.keys(block)[0] ?? ''}" cannot be translated to another protocol`, 'unsupported_parameter');
}

/** Guarded text still reaches the model as text; only its guardrail marking is lost. */
function decodeGuardContent(guard: GuardContentBlock, at: string, unmapped: UnmappedField[]): TextBlock {
  if (guard.text === undefined) throw invalidField(at, 'only guarded text can be translated to another protocol', 'unsupported_parameter');
  unmapped.push({ path: at, value: guard, disposition: 'warn', reason: 'guardrail marking of this text' });
  return { type: 'text', text: guard.text.text };
}

/** A user turn's toolResult blocks become a `tool` message ahead of the rest of the turn. */
function decodeMessage(message: BedrockMessage, path: string, unmapped: UnmappedField[]): Message[] {
  const results: ContentBlock[] = [];
  const rest: ContentBlock[] = [];
  let placed: Placed | undefined;
  message.content.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    if (block.cachePoint !== undefined) {
      if (!attachCachePoint(placed, block.cachePoint)) unmapped.push(cachePointUnmapped(`${at}.cachePoint`, block.cachePoint));
      placed = undefined;
      return;
    }
    const list = block.toolResult !== undefined ? results : rest;
    list.push(message.role === 'system' ? decodeSystemText(block, at, unmapped) : decodeBlock(block, at, unmapped));
    placed = { list, index: list.length - 1 };
  });
  if (message.role === 'system') return [{ role: 'system', content: rest }];
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  const out: Message[] = [];
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (rest.length > 0 || results.length === 0) out.push({ role, content: rest });
  return out;
}

function decodeBlock(block: BedrockContentBlock, at: string, unmapped: UnmappedField[]): ContentBlock {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.image !== undefined) return decodeImage(block.image, `${at}.image`);
  if (block.toolUse !== undefined) {
    const use = block.toolUse;
    if (use.type !== undefined && use.type !== 'tool_use') {
      throw invalidField(`${at}.toolUse.type`, `a "${use.type}" call runs at AWS and cannot be translated`, 'unsupported_parameter');
    }
    return { type: 'tool_call', ...splitCarriedId(use.toolUseId), name: use.name, arguments: argumentsFromObject(use.input) };
  }
  if (block.toolResult !== undefined) return decodeToolResult(block.toolResult, `${at}.toolResult`);
  if (block.reasoningContent !== undefined) {
    const reasoning = block.reasoningContent;
    if (reasoning.reasoningText !== undefined) {
      const { text, signature } = reasoning.reasoningText;
      // A signature may be Anthropic's thinking carried by the gateway (shared/thinking-carrier.ts).
      const carried = signature === undefined ? undefined : thinkingFromCarrier(signature);
      return carried ?? { type: 'reasoning', text, ...(signature !== undefined && { signature }), origin: 'bedrock' };
    }
    if (reasoning.redactedContent !== undefined)
      return thinkingFromCarrier(reasoning.redactedContent) ?? { type: 'reasoning', text: '', redacted: reasoning.redactedContent, origin: 'bedrock' };
    throw invalidField(`${at}.reasoningContent`, 'this kind of reasoning content cannot be translated', 'unsupported_parameter');
  }
  if (block.guardContent !== undefined) return decodeGuardContent(block.guardContent, `${at}.guardContent`, unmapped);
  // document, video, audio, citationsContent, searchResult and members newer than this codec.
  throw invalidField(at, `content block "${Object.keys(block)[0] ?? ''}" cannot be translated to another protocol yet`, 'unsupported_parameter');
}

function decodeImage(image: BedrockImage, at: string): ImageBlock {
  if (typeof image.source.bytes === 'string') {
    return { type: 'image', source: { kind: 'base64', mediaType: mediaTypeFromFormat(image.format), data: image.source.bytes } };
  }
  const member = Object.keys(image.source)[0] ?? 'source';
  throw invalidField(`${at}.source.${member}`, 'only inline image bytes can be translated (an S3 object is bound to AWS)', 'unsupported_parameter');
}

/**
 * JSON results become their JSON text: the model reads the same JSON, and no other protocol has a
 * structured tool-result part.
 */
function decodeToolResult(result: BedrockToolResult, at: string): ContentBlock {
  const content = result.content.map((part, k): TextBlock | ImageBlock => {
    const partAt = `${at}.content[${k}]`;
    if (typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.json !== undefined) return { type: 'text', text: JSON.stringify(part.json) };
    if (part.image !== undefined) return decodeImage(part.image, `${partAt}.image`);
    throw invalidField(partAt, `tool result block "${Object.keys(part)[0] ?? ''}" cannot be translated to another protocol yet`, 'unsupported_parameter');
  });
  return { type: 'tool_result', callId: plainCallId(result.toolUseId), content, isError: result.status === 'error' };
}

/** A cachePoint after a tool spec is that tool's cache hint, as Anthropic's cache_control on a tool. */
function decodeTools(config: BedrockToolConfig, unmapped: UnmappedField[]): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  let lastWasTool = false;
  config.tools.forEach((tool, k) => {
    const at = `toolConfig.tools[${k}]`;
    const last = tools.at(-1);
    if (tool.cachePoint !== undefined) {
      if (lastWasTool && last !== undefined) tools[tools.length - 1] = { ...last, cacheControl: cacheControlFromPoint(tool.cachePoint) };
      else unmapped.push(cachePointUnmapped(`${at}.cachePoint`, tool.cachePoint));
      lastWasTool = false;
      return;
    }
    if (tool.toolSpec === undefined) {
      throw invalidField(at, `tool "${Object.keys(tool)[0] ?? ''}" runs at AWS and cannot be translated`, 'unsupported_parameter');
    }
    const spec = tool.toolSpec;
    tools.push({
      name: spec.name,
      ...(spec.description !== undefined && { description: spec.description }),
      parameters: spec.inputSchema.json ?? { type: 'object', properties: {} },
      ...(typeof spec.strict === 'boolean' && { strict: spec.strict }),
    });
    lastWasTool = true;
  });
  return tools;
}

function decodeToolChoice(choice: BedrockToolChoice): ToolChoice {
  if (choice.tool !== undefined) return { type: 'tool', name: choice.tool.name };
  if (choice.any !== undefined) return { type: 'required' };
  if (choice.auto !== undefined) return { type: 'auto' };
  throw invalidField('toolConfig.toolChoice', `tool choice "${Object.keys(choice)[0] ?? ''}" cannot be translated`, 'unsupported_parameter');
}
