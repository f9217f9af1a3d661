import type { ChatRequest, ContentBlock, ImageBlock, Message, ResponseFormat, TextBlock, ToolChoice, ToolDefinition, UnmappedField } from '../../ir/index.ts';
import { imageSourceFromUrl } from '../shared/data-url.ts';
import { invalidField } from '../shared/invalid-field.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type {
  AssistantMessage as CohereAssistantMessage,
  CohereRequest,
  ContentPart as CoherePart,
  Message as CohereMessage,
  ResponseFormat as CohereResponseFormat,
  Tool as CohereTool,
  ToolMessage as CohereToolMessage,
} from '../../../generated/protocols/cohere/request.ts';
import { isType } from '../shared/schema-branch.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeThinking } from './thinking.ts';

/** v2 Chat request (schema-validated) to IR. */
export function decodeRequest(body: Record<string, unknown>): ChatRequest {
  const request = validatedRequest<CohereRequest>(body);
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages = request.messages.map((m, i) => decodeMessage(m, `messages[${i}]`, unmapped));
  const strict = request.strict_tools === true;
  const tools = Array.isArray(request.tools) ? request.tools.map((tool, i) => decodeTool(tool, i, strict)) : undefined;
  const toolChoice = decodeToolChoice(request.tool_choice);
  const responseFormat = decodeResponseFormat(request.response_format);
  const reasoning = decodeThinking(request.thinking);
  return {
    model: request.model,
    messages,
    stream: request.stream === true,
    // Cohere streams always end with usage.
    streamUsage: true,
    ...(tools !== undefined && { tools }),
    ...(toolChoice !== undefined && { toolChoice }),
    ...(typeof request.max_tokens === 'number' && { maxTokens: request.max_tokens }),
    ...(Array.isArray(request.stop_sequences) && { stopSequences: request.stop_sequences }),
    ...(typeof request.temperature === 'number' && { temperature: request.temperature }),
    ...(typeof request.p === 'number' && { topP: request.p }),
    ...(typeof request.seed === 'number' && { seed: request.seed }),
    // k = 0 switches top-k sampling off, which is what leaving it out means everywhere else.
    ...(typeof request.k === 'number' && request.k > 0 && { topK: request.k }),
    ...(responseFormat !== undefined && { responseFormat }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'cohere',
    unmapped,
  };
}

function decodeMessage(message: CohereMessage, path: string, unmapped: UnmappedField[]): Message {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: partsOf(message.content).map((part, j) => decodeText(part, `${path}.content[${j}]`, 'system')) };
    case 'user':
      return { role: 'user', content: partsOf(message.content).map((part, j) => decodeUserPart(part, `${path}.content[${j}]`)) };
    case 'assistant':
      return decodeAssistant(message, path, unmapped);
    case 'tool':
      return decodeToolMessage(message, path, unmapped);
  }
}

function partsOf(content: string | CoherePart[] | undefined): CoherePart[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content;
}

function decodeText(part: CoherePart, path: string, where: string): TextBlock {
  if (!isType(part, 'text')) throw invalidField(`${path}.type`, `a ${where} message cannot hold "${part.type}" parts`, 'unsupported_parameter');
  return { type: 'text', text: part.text };
}

function decodeUserPart(part: CoherePart, path: string): TextBlock | ImageBlock {
  if (!isType(part, 'image_url')) return decodeText(part, path, 'user');
  const { url, detail } = part.image_url;
  return { type: 'image', source: imageSourceFromUrl(url), ...(detail !== undefined && { detail }) };
}

/**
 * The IR order of an assistant turn is reasoning, then the tool plan (the text the model writes
 * before calling tools), then the tool calls, then the message text. encode-request reads it back
 * the same way: text before the first tool call is the plan, text after it is content.
 */
function decodeAssistant(message: CohereAssistantMessage, path: string, unmapped: UnmappedField[]): Message {
  const reasoning: ContentBlock[] = [];
  const texts: ContentBlock[] = [];
  partsOf(message.content).forEach((part, j) => {
    if (isType(part, 'thinking')) reasoning.push({ type: 'reasoning', text: part.thinking, origin: 'cohere' });
    else texts.push(decodeText(part, `${path}.content[${j}]`, 'assistant'));
  });
  const plan: ContentBlock[] = typeof message.tool_plan === 'string' && message.tool_plan !== '' ? [{ type: 'text', text: message.tool_plan }] : [];
  const calls = (message.tool_calls ?? []).map((call, k): ContentBlock => {
    const name = call.function?.name;
    if (name === undefined || name === '') throw invalidField(`${path}.tool_calls[${k}].function.name`, 'a tool call needs the name of the function it called');
    return { type: 'tool_call', ...splitCarriedId(call.id), name, arguments: call.function?.arguments ?? '' };
  });
  if (Array.isArray(message.citations) && message.citations.length > 0) {
    unmapped.push({ path: `${path}.citations`, value: message.citations, disposition: 'warn', reason: 'citations' });
  }
  return { role: 'assistant', content: [...reasoning, ...plan, ...calls, ...texts] };
}

/**
 * A document part (Cohere's citable form of a tool output) reaches other protocols as the JSON
 * text of its data: the model still reads it, only citing it by id is lost.
 */
function decodeToolMessage(message: CohereToolMessage, path: string, unmapped: UnmappedField[]): Message {
  const content = partsOf(message.content).map((part, j): TextBlock => {
    const at = `${path}.content[${j}]`;
    if (!isType(part, 'document')) return decodeText(part, at, 'tool');
    unmapped.push({
      path: `${at}.document`,
      value: part.document,
      disposition: 'warn',
      reason: 'citable document form of a tool result (its data is sent as JSON text)',
    });
    return { type: 'text', text: JSON.stringify(part.document.data) };
  });
  return { role: 'tool', content: [{ type: 'tool_result', callId: plainCallId(message.tool_call_id), content, isError: false }] };
}

function decodeTool(tool: CohereTool, index: number, strict: boolean): ToolDefinition {
  if (!isType(tool, 'function')) {
    throw invalidField(`tools[${index}].type`, `tool type "${tool.type}" cannot be translated to another protocol`, 'unsupported_parameter');
  }
  const fn = tool.function;
  return {
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    parameters: fn.parameters,
    ...(strict && { strict: true }),
  };
}

function decodeToolChoice(choice: CohereRequest['tool_choice']): ToolChoice | undefined {
  if (choice === 'REQUIRED') return { type: 'required' };
  if (choice === 'NONE') return { type: 'none' };
  return undefined;
}

function decodeResponseFormat(format: CohereResponseFormat | null | undefined): ResponseFormat | undefined {
  if (format === undefined || format === null) return undefined;
  if (format.type === 'text') return { type: 'text' };
  if (isType(format, 'json_object')) {
    const schema = format.json_schema;
    return schema !== undefined && schema !== null ? { type: 'json_schema', schema } : { type: 'json_object' };
  }
  throw invalidField('response_format.type', `response format "${format.type}" cannot be translated`, 'unsupported_parameter');
}
