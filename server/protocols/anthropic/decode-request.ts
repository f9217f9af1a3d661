import type {
  ChatRequest,
  ContentBlock,
  ImageBlock,
  ImageSource,
  Message,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
  UnmappedField,
} from '../../ir/index.ts';
import { invalidField } from '../shared/invalid-field.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type {
  AnthropicRequest,
  ContentBlock as AnthropicBlock,
  Message as AnthropicMessage,
  OutputConfig,
  Source as AnthropicImageSource,
  Tool as AnthropicTool,
  ToolChoice as AnthropicToolChoice,
} from '../../../generated/protocols/anthropic/request.ts';
import { type Branch, isType } from '../shared/schema-branch.ts';
import type { AnthropicClientTool } from './wire.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeThinking } from './thinking.ts';
import { thinkingFromCarrier } from '../shared/thinking-carrier.ts';

/** Messages request (schema-validated) to IR. The model named in the path wins over the body's. */
export function decodeRequest(body: Record<string, unknown>, pathModel: string | undefined): ChatRequest {
  const request = validatedRequest<AnthropicRequest>(body);
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages: Message[] = [];
  if (request.system !== undefined) messages.push(decodeSystem(request.system, 'system', unmapped));
  request.messages.forEach((m, i) => messages.push(...decodeMessage(m, `messages[${i}]`, unmapped)));

  const toolChoice = request.tool_choice;
  const metadata = request.metadata;
  const responseFormat = decodeOutputConfig(request.output_config);
  const reasoning = decodeThinking(request.thinking, request.output_config?.effort, 'thinking', unmapped);
  return {
    model: pathModel ?? request.model,
    messages,
    stream: body.stream === true,
    // Anthropic streams always carry usage.
    streamUsage: true,
    ...(request.tools !== undefined && { tools: request.tools.map(decodeTool) }),
    ...(toolChoice !== undefined && { toolChoice: decodeToolChoice(toolChoice) }),
    ...(toolChoice?.disable_parallel_tool_use === true && { parallelToolCalls: false }),
    maxTokens: request.max_tokens,
    ...(request.stop_sequences !== undefined && { stopSequences: request.stop_sequences }),
    ...(typeof request.temperature === 'number' && { temperature: request.temperature }),
    ...(typeof request.top_p === 'number' && { topP: request.top_p }),
    ...(typeof request.top_k === 'number' && { topK: request.top_k }),
    ...(responseFormat !== undefined && { responseFormat }),
    ...(typeof metadata?.user_id === 'string' && { user: metadata.user_id }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'anthropic',
    unmapped,
  };
}

function decodeSystem(system: string | AnthropicBlock[], path: string, unmapped: UnmappedField[]): Message {
  if (typeof system === 'string') return { role: 'system', content: [{ type: 'text', text: system }] };
  return { role: 'system', content: system.map((block, i) => decodeText(block, `${path}[${i}]`, unmapped)) };
}

/** A user turn's tool_result blocks become a `tool` message ahead of the rest of the turn. */
function decodeMessage(message: AnthropicMessage, path: string, unmapped: UnmappedField[]): Message[] {
  const blocks: AnthropicBlock[] =
    typeof message.content === 'string' ? (message.content === '' ? [] : [{ type: 'text', text: message.content }]) : message.content;
  if (message.role === 'system') {
    return [{ role: 'system', content: blocks.map((b, j) => decodeText(b, `${path}.content[${j}]`, unmapped)) }];
  }
  const results: ContentBlock[] = [];
  const rest: ContentBlock[] = [];
  blocks.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    // The IR keeps cache hints on text and tools only; elsewhere they are reported, not lost silently.
    const hint = block.cache_control;
    if (hint !== undefined && hint !== null && block.type !== 'text') {
      unmapped.push({ path: `${at}.cache_control`, value: hint, disposition: 'warn', reason: 'prompt cache hint' });
    }
    if (isType(block, 'tool_result')) results.push(decodeToolResult(block, at, unmapped));
    else rest.push(decodeBlock(block, at, message.role === 'assistant' ? 'assistant' : 'user', unmapped));
  });
  const out: Message[] = [];
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (rest.length > 0 || results.length === 0) out.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: rest });
  return out;
}

function decodeBlock(block: AnthropicBlock, path: string, role: 'user' | 'assistant', unmapped: UnmappedField[]): ContentBlock {
  if (isType(block, 'text')) return decodeText(block, path, unmapped);
  if (isType(block, 'image')) return decodeImage(block.source, path);
  if (isType(block, 'tool_use')) return { type: 'tool_call', ...splitCarriedId(block.id), name: block.name, arguments: argumentsFromObject(block.input) };
  if (isType(block, 'thinking')) {
    // An empty signature is what gateways write for reasoning they could not sign: not Anthropic's.
    // A signature may be Bedrock's thinking carried by the gateway (shared/thinking-carrier.ts).
    if (!block.signature) return { type: 'reasoning', text: block.thinking };
    return thinkingFromCarrier(block.signature) ?? { type: 'reasoning', text: block.thinking, signature: block.signature, origin: 'anthropic' };
  }
  if (isType(block, 'redacted_thinking')) return thinkingFromCarrier(block.data) ?? { type: 'reasoning', text: '', redacted: block.data, origin: 'anthropic' };
  throw invalidField(`${path}.type`, `${role} content block "${block.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
}

function decodeText(block: AnthropicBlock, path: string, unmapped: UnmappedField[]): TextBlock {
  if (!isType(block, 'text')) throw invalidField(`${path}.type`, 'only text blocks are allowed here');
  if (Array.isArray(block.citations) && block.citations.length > 0) {
    unmapped.push({ path: `${path}.citations`, value: block.citations, disposition: 'warn', reason: 'citations' });
  }
  return { type: 'text', text: block.text, ...(block.cache_control !== undefined && { cacheControl: block.cache_control }) };
}

function decodeImage(source: AnthropicImageSource, path: string): ImageBlock {
  let image: ImageSource;
  if (isType(source, 'base64')) {
    image = { kind: 'base64', mediaType: source.media_type, data: source.data };
  } else if (isType(source, 'url')) {
    image = { kind: 'url', url: source.url };
  } else {
    throw invalidField(`${path}.source.type`, `image source "${source.type}" is bound to Anthropic and cannot be translated`, 'unsupported_parameter');
  }
  return { type: 'image', source: image };
}

function decodeToolResult(block: Branch<AnthropicBlock, 'tool_result'>, path: string, unmapped: UnmappedField[]): ContentBlock {
  const parts: AnthropicBlock[] =
    typeof block.content === 'string' ? (block.content === '' ? [] : [{ type: 'text', text: block.content }]) : (block.content ?? []);
  const content = parts.map((part, k): TextBlock | ImageBlock => {
    const at = `${path}.content[${k}]`;
    if (isType(part, 'text')) return decodeText(part, at, unmapped);
    if (isType(part, 'image')) return decodeImage(part.source, at);
    throw invalidField(`${at}.type`, `tool result block "${part.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
  });
  return { type: 'tool_result', callId: plainCallId(block.tool_use_id), content, isError: block.is_error === true };
}

function decodeTool(tool: AnthropicTool, index: number): ToolDefinition {
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw invalidField(`tools[${index}].type`, `server tool "${tool.type}" runs at Anthropic and cannot be translated`, 'unsupported_parameter');
  }
  return decodeClientTool(tool as AnthropicClientTool);
}

function decodeClientTool(tool: AnthropicClientTool): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    parameters: tool.input_schema ?? { type: 'object', properties: {} },
    ...(typeof tool.strict === 'boolean' && { strict: tool.strict }),
    ...(tool.cache_control !== undefined && { cacheControl: tool.cache_control }),
  };
}

function decodeToolChoice(choice: AnthropicToolChoice): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', name: choice.name ?? '' };
  }
}

function decodeOutputConfig(config: OutputConfig | undefined): ResponseFormat | undefined {
  const format = config?.format;
  if (format === undefined || format === null) return undefined;
  if (isType(format, 'json_schema')) return { type: 'json_schema', schema: format.schema };
  throw invalidField('output_config.format.type', `output format "${format.type}" cannot be translated`, 'unsupported_parameter');
}
