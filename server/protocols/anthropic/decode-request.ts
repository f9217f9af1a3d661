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
  AnthropicBlock,
  AnthropicImageSource,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
} from './wire.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeThinking } from './thinking.ts';
import { thinkingFromCarrier } from '../shared/thinking-carrier.ts';

/** Messages request (schema-validated) to IR. The model named in the path wins over the body's. */
export function decodeRequest(body: Record<string, unknown>, pathModel: string | undefined): ChatRequest {
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages: Message[] = [];
  if (body.system !== undefined) messages.push(decodeSystem(body.system as string | AnthropicTextBlock[], 'system', unmapped));
  (body.messages as AnthropicMessage[]).forEach((m, i) => messages.push(...decodeMessage(m, `messages[${i}]`, unmapped)));

  const toolChoice = body.tool_choice as AnthropicToolChoice | undefined;
  const metadata = body.metadata as { user_id?: string | null } | undefined;
  const responseFormat = decodeOutputConfig(body.output_config, unmapped);
  const reasoning = decodeThinking(body.thinking, (body.output_config as { effort?: unknown } | null | undefined)?.effort, 'thinking', unmapped);
  return {
    model: pathModel ?? (body.model as string),
    messages,
    stream: body.stream === true,
    // Anthropic streams always carry usage.
    streamUsage: true,
    ...(body.tools !== undefined && { tools: (body.tools as AnthropicTool[]).map(decodeTool) }),
    ...(toolChoice !== undefined && { toolChoice: decodeToolChoice(toolChoice) }),
    ...(toolChoice?.disable_parallel_tool_use === true && { parallelToolCalls: false }),
    maxTokens: body.max_tokens as number,
    ...(Array.isArray(body.stop_sequences) && { stopSequences: body.stop_sequences as string[] }),
    ...(typeof body.temperature === 'number' && { temperature: body.temperature }),
    ...(typeof body.top_p === 'number' && { topP: body.top_p }),
    ...(typeof body.top_k === 'number' && { topK: body.top_k }),
    ...(responseFormat !== undefined && { responseFormat }),
    ...(typeof metadata?.user_id === 'string' && { user: metadata.user_id }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'anthropic',
    unmapped,
  };
}

function decodeSystem(system: string | AnthropicTextBlock[], path: string, unmapped: UnmappedField[]): Message {
  if (typeof system === 'string') return { role: 'system', content: [{ type: 'text', text: system }] };
  return { role: 'system', content: system.map((block, i) => decodeText(block, `${path}[${i}]`, unmapped)) };
}

/** A user turn's tool_result blocks become a `tool` message ahead of the rest of the turn. */
function decodeMessage(message: AnthropicMessage, path: string, unmapped: UnmappedField[]): Message[] {
  const blocks: AnthropicBlock[] = typeof message.content === 'string'
    ? (message.content === '' ? [] : [{ type: 'text', text: message.content }])
    : message.content;
  if (message.role === 'system') {
    return [{ role: 'system', content: blocks.map((b, j) => decodeText(b as AnthropicTextBlock, `${path}.content[${j}]`, unmapped)) }];
  }
  const results: ContentBlock[] = [];
  const rest: ContentBlock[] = [];
  blocks.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    // The IR keeps cache hints on text and tools only; elsewhere they are reported, not lost silently.
    const hint = (block as { cache_control?: unknown }).cache_control;
    if (hint !== undefined && hint !== null && block.type !== 'text') {
      unmapped.push({ path: `${at}.cache_control`, value: hint, disposition: 'warn', reason: 'prompt cache hint' });
    }
    if (block.type === 'tool_result') results.push(decodeToolResult(block, at, unmapped));
    else rest.push(decodeBlock(block, at, message.role === 'assistant' ? 'assistant' : 'user', unmapped));
  });
  const out: Message[] = [];
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (rest.length > 0 || results.length === 0) out.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: rest });
  return out;
}

function decodeBlock(block: AnthropicBlock, path: string, role: 'user' | 'assistant', unmapped: UnmappedField[]): ContentBlock {
  switch (block.type) {
    case 'text':
      return decodeText(block, path, unmapped);
    case 'image':
      return decodeImage(block.source, path);
    case 'tool_use':
      return { type: 'tool_call', ...splitCarriedId(block.id), name: block.name, arguments: argumentsFromObject(block.input) };
    case 'thinking':
      // An empty signature is what gateways write for reasoning they could not sign: not Anthropic's.
      // A signature may be Bedrock's thinking carried by the gateway (shared/thinking-carrier.ts).
      if (!block.signature) return { type: 'reasoning', text: block.thinking };
      return thinkingFromCarrier(block.signature) ?? { type: 'reasoning', text: block.thinking, signature: block.signature, origin: 'anthropic' };
    case 'redacted_thinking':
      return thinkingFromCarrier(block.data) ?? { type: 'reasoning', text: '', redacted: block.data, origin: 'anthropic' };
    default:
      throw invalidField(`${path}.type`, `${role} content block "${(block as { type: string }).type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
  }
}

function decodeText(block: AnthropicTextBlock, path: string, unmapped: UnmappedField[]): TextBlock {
  if (block.type !== 'text') throw invalidField(`${path}.type`, 'only text blocks are allowed here');
  if (Array.isArray(block.citations) && block.citations.length > 0) {
    unmapped.push({ path: `${path}.citations`, value: block.citations, disposition: 'warn', reason: 'citations' });
  }
  return { type: 'text', text: block.text, ...(block.cache_control !== undefined && { cacheControl: block.cache_control }) };
}

function decodeImage(source: AnthropicImageSource, path: string): ImageBlock {
  let image: ImageSource;
  if (source.type === 'base64') {
    const s = source as { media_type: string; data: string };
    image = { kind: 'base64', mediaType: s.media_type, data: s.data };
  } else if (source.type === 'url') {
    image = { kind: 'url', url: (source as { url: string }).url };
  } else {
    throw invalidField(`${path}.source.type`, `image source "${source.type}" is bound to Anthropic and cannot be translated`, 'unsupported_parameter');
  }
  return { type: 'image', source: image };
}

function decodeToolResult(block: AnthropicToolResultBlock, path: string, unmapped: UnmappedField[]): ContentBlock {
  const parts = typeof block.content === 'string'
    ? (block.content === '' ? [] : [{ type: 'text' as const, text: block.content }])
    : (block.content ?? []);
  const content = parts.map((part, k): TextBlock | ImageBlock => {
    const at = `${path}.content[${k}]`;
    if (part.type === 'text') return decodeText(part as AnthropicTextBlock, at, unmapped);
    if (part.type === 'image') return decodeImage((part as { source: AnthropicImageSource }).source, at);
    throw invalidField(`${at}.type`, `tool result block "${part.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
  });
  return { type: 'tool_result', callId: plainCallId(block.tool_use_id), content, isError: block.is_error === true };
}

function decodeTool(tool: AnthropicTool, index: number): ToolDefinition {
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw invalidField(`tools[${index}].type`, `server tool "${tool.type}" runs at Anthropic and cannot be translated`, 'unsupported_parameter');
  }
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

function decodeOutputConfig(config: unknown, unmapped: UnmappedField[]): ResponseFormat | undefined {
  if (config === undefined || config === null) return undefined;
  const c = config as { format?: { type?: string; schema?: unknown } | null; effort?: string };
  const format = c.format;
  if (format === undefined || format === null) return undefined;
  if (format.type === 'json_schema') return { type: 'json_schema', schema: format.schema ?? {} };
  throw invalidField('output_config.format.type', `output format "${format.type}" cannot be translated`, 'unsupported_parameter');
}
