import type { ChatRequest, ContentBlock, Message, ReasoningBlock, ResponseFormat, TextBlock, ToolDefinition } from '../../ir/index.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { imageSourceToUrl } from '../shared/data-url.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { dropped, reshaped } from '../shared/warnings.ts';
import type {
  AssistantMessage as CohereAssistantMessage,
  ContentPart as CoherePart,
  Message as CohereMessage,
  ResponseFormat as CohereResponseFormat,
  TextPart as CohereTextPart,
  ThinkingPart as CohereThinkingPart,
  Tool as CohereTool,
  ToolCall as CohereToolCall,
} from '../../../generated/protocols/cohere/request.ts';
import { encodeThinking } from './thinking.ts';
import { asJsonObject } from '../shared/json-object.ts';
import { isType } from '../shared/schema-branch.ts';

/** Cohere documents p from 0.01 to 0.99 and k up to 500. */
const P_RANGE = { min: 0.01, max: 0.99 };
const K_MAX = 500;

/** IR to a v2 Chat request for one lane. Pure. */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  const warnings: TranslationWarning[] = [];
  const messages: CohereMessage[] = [];
  request.messages.forEach((message, i) => messages.push(...encodeMessage(message, `messages[${i}]`, warnings)));

  const body: Record<string, unknown> = { model: lane.model, messages };
  if (request.tools !== undefined) {
    body.tools = request.tools.map((tool, i) => encodeTool(tool, `tools[${i}]`, warnings));
    if (request.tools.length > 0 && request.tools.every((tool) => tool.strict === true)) body.strict_tools = true;
    else
      request.tools.forEach((tool, i) => {
        if (tool.strict === true) warnings.push(dropped(`tools[${i}].strict`, 'strict mode for some tools only (Cohere has one switch for all tools)'));
      });
  }
  const choice = request.toolChoice;
  if (choice?.type === 'tool') throw unsupportedField('tool_choice', 'Cohere', 'Cohere can require a tool call or forbid one, but cannot name the tool');
  if (choice?.type === 'required') body.tool_choice = 'REQUIRED';
  if (choice?.type === 'none') body.tool_choice = 'NONE';
  if (request.parallelToolCalls === false) warnings.push(dropped('parallel_tool_calls', 'the ban on parallel tool calls'));
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stopSequences !== undefined) body.stop_sequences = request.stopSequences;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.p = clamp('top_p', request.topP, P_RANGE.min, P_RANGE.max, warnings);
  if (request.topK !== undefined) body.k = clamp('top_k', request.topK, 0, K_MAX, warnings);
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.responseFormat !== undefined) body.response_format = encodeResponseFormat(request.responseFormat, warnings);
  if (request.user !== undefined) warnings.push(dropped('user', 'the end-user id'));
  const thinking = encodeThinking(request.reasoning, lane.model, warnings);
  if (thinking !== undefined) body.thinking = thinking;
  if (request.stream) body.stream = true;
  return { body, warnings };
}

function clamp(path: string, value: number, min: number, max: number, warnings: TranslationWarning[]): number {
  const clamped = Math.min(max, Math.max(min, value));
  if (clamped !== value) warnings.push(reshaped(path, `${value} is outside Cohere's range ${min} to ${max}; sent as ${clamped}`));
  return clamped;
}

function encodeMessage(message: Message, path: string, warnings: TranslationWarning[]): CohereMessage[] {
  // Cohere messages have no author name (OpenAI's per-message `name`).
  if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'the message author name'));
  switch (message.role) {
    case 'system':
    case 'developer': {
      const parts = message.content.map((block, j) => textPart(block, `${path}.content[${j}]`, 'system messages can only hold text', warnings));
      return [{ role: 'system', content: collapse(parts) }];
    }
    case 'user':
      return [{ role: 'user', content: collapse(message.content.map((block, j) => userPart(block, `${path}.content[${j}]`, warnings))) }];
    case 'assistant':
      return [encodeAssistant(message, path, warnings)];
    case 'tool':
      return message.content.map((block, j): CohereMessage => {
        const at = `${path}.content[${j}]`;
        if (block.type !== 'tool_result') throw unsupportedField(at, 'Cohere', `tool messages can only hold tool results, not ${block.type} blocks`);
        if (block.isError) warnings.push(dropped(`${at}.is_error`, 'the tool-error flag (Cohere tool messages have none)'));
        const parts = block.content.map((part, k) => textPart(part, `${at}.content[${k}]`, 'tool results can only hold text', warnings));
        return { role: 'tool', tool_call_id: block.callId, content: collapse(parts) };
      });
  }
}

/** One text part is sent as a plain string, the form every Cohere example uses. */
function collapse(parts: CoherePart[]): string | CoherePart[] {
  if (parts.length === 0) return '';
  const only = parts[0];
  return parts.length === 1 && only !== undefined && isType(only, 'text') ? only.text : parts;
}

function textPart(block: ContentBlock, path: string, why: string, warnings: TranslationWarning[]): CohereTextPart {
  if (block.type !== 'text') throw unsupportedField(path, 'Cohere', why);
  return encodeText(block, path, warnings);
}

function encodeText(block: TextBlock, path: string, warnings: TranslationWarning[]): CohereTextPart {
  if (block.cacheControl !== undefined) warnings.push(dropped(`${path}.cache_control`, 'prompt cache hints'));
  return { type: 'text', text: block.text };
}

function userPart(block: ContentBlock, path: string, warnings: TranslationWarning[]): CoherePart {
  if (block.type === 'image') {
    return { type: 'image_url', image_url: { url: imageSourceToUrl(block.source), ...(block.detail !== undefined && { detail: block.detail }) } };
  }
  return textPart(block, path, `user messages cannot hold ${block.type} blocks`, warnings);
}

/** Text before the first tool call is the tool plan; text after it (or without calls) is content. */
function encodeAssistant(message: Message, path: string, warnings: TranslationWarning[]): CohereAssistantMessage {
  const firstCall = message.content.findIndex((block) => block.type === 'tool_call');
  const plan: string[] = [];
  const parts: CoherePart[] = [];
  const calls: CohereToolCall[] = [];
  message.content.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    if (block.type === 'text') {
      const part = encodeText(block, at, warnings);
      if (j < firstCall) plan.push(part.text);
      else parts.push(part);
    } else if (block.type === 'tool_call') {
      calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } });
    } else if (block.type === 'reasoning') {
      const thinking = encodeReasoning(block, at, warnings);
      if (thinking !== undefined) parts.push(thinking);
    } else {
      throw unsupportedField(at, 'Cohere', `assistant messages cannot hold ${block.type} blocks`);
    }
  });
  // Thinking comes first in a Cohere answer; keep that order whatever the source did.
  parts.sort((a, b) => Number(b.type === 'thinking') - Number(a.type === 'thinking'));
  const out: CohereAssistantMessage = { role: 'assistant' };
  if (plan.length > 0) out.tool_plan = plan.join('');
  if (calls.length > 0) out.tool_calls = calls;
  if (parts.length > 0) out.content = collapse(parts);
  return out;
}

/**
 * Cohere's thinking is plain text with no proof attached, so any protocol's reasoning text can be
 * replayed; signatures and encrypted reasoning from elsewhere cannot, and are reported.
 */
function encodeReasoning(block: ReasoningBlock, path: string, warnings: TranslationWarning[]): CohereThinkingPart | undefined {
  if (block.signature !== undefined) warnings.push(dropped(`${path}.signature`, `the reasoning signature of the ${block.origin ?? 'source'} protocol`));
  if (block.redacted !== undefined) warnings.push(dropped(`${path}.redacted`, `encrypted reasoning of the ${block.origin ?? 'source'} protocol`));
  return block.text === '' ? undefined : { type: 'thinking', thinking: block.text };
}

function encodeTool(tool: ToolDefinition, path: string, warnings: TranslationWarning[]): CohereTool {
  if (tool.cacheControl !== undefined) warnings.push(dropped(`${path}.cache_control`, 'prompt cache hints'));
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      parameters: asJsonObject(tool.parameters),
    },
  };
}

/** Cohere always enforces a given schema, so OpenAI's `strict` needs no field of its own. */
function encodeResponseFormat(format: ResponseFormat, warnings: TranslationWarning[]): CohereResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  if (format.name !== undefined) warnings.push(dropped('response_format.json_schema.name', 'the schema name'));
  return { type: 'json_object', json_schema: asJsonObject(format.schema) };
}
