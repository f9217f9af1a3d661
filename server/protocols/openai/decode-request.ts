import type {
  ChatRequest,
  ContentBlock,
  ImageBlock,
  Message,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
} from '../../ir/index.ts';
import { imageSourceFromUrl } from '../shared/data-url.ts';
import { invalidField, unsupportedField } from '../shared/invalid-field.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type { OpenAIContentPart, OpenAIMessage, OpenAITool, OpenAIToolChoice } from './wire.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeReasoningEffort } from './reasoning.ts';

/** Chat Completions request (schema-validated) to IR. */
export function decodeRequest(body: Record<string, unknown>): ChatRequest {
  const messages = (body.messages as OpenAIMessage[]).map((m, i) => decodeMessage(m, `messages[${i}]`));
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  const maxTokens = (body.max_completion_tokens ?? body.max_tokens) as number | undefined;
  const stop = body.stop as string | string[] | null | undefined;
  const user = (body.safety_identifier ?? body.user) as string | undefined;
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const reasoning = decodeReasoningEffort(body.reasoning_effort, unmapped);
  return {
    model: body.model as string,
    messages,
    stream: body.stream === true,
    streamUsage: streamOptions?.include_usage === true,
    ...(body.tools !== undefined && { tools: (body.tools as OpenAITool[]).map(decodeTool) }),
    ...(body.tool_choice !== undefined && { toolChoice: decodeToolChoice(body.tool_choice as OpenAIToolChoice) }),
    ...(typeof body.parallel_tool_calls === 'boolean' && { parallelToolCalls: body.parallel_tool_calls }),
    ...(maxTokens !== undefined && maxTokens !== null && { maxTokens }),
    ...(stop !== undefined && stop !== null && { stopSequences: typeof stop === 'string' ? [stop] : stop }),
    ...(typeof body.temperature === 'number' && { temperature: body.temperature }),
    ...(typeof body.top_p === 'number' && { topP: body.top_p }),
    ...(typeof body.seed === 'number' && { seed: body.seed }),
    ...(body.response_format !== undefined && { responseFormat: decodeResponseFormat(body.response_format) }),
    ...(user !== undefined && user !== null && { user }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'openai',
    unmapped,
  };
}

function decodeMessage(message: OpenAIMessage, path: string): Message {
  const name = typeof message.name === 'string' ? { name: message.name } : {};
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return { role: message.role, content: decodeContent(message.content, `${path}.content`), ...name };
    case 'assistant': {
      const content: ContentBlock[] = [...decodeContent(message.content, `${path}.content`)];
      if (typeof message.refusal === 'string' && message.refusal !== '') content.push({ type: 'text', text: message.refusal });
      for (const call of message.tool_calls ?? []) {
        content.push({ type: 'tool_call', ...splitCarriedId(call.id), name: call.function.name, arguments: call.function.arguments });
      }
      return { role: 'assistant', content, ...name };
    }
    case 'tool': {
      const result = decodeContent(message.content, `${path}.content`);
      const onlyText = result.filter((b): b is TextBlock => b.type === 'text');
      return {
        role: 'tool',
        content: [{ type: 'tool_result', callId: plainCallId(message.tool_call_id as string), content: onlyText, isError: false }],
      };
    }
    default:
      throw unsupportedField(`${path}.role`, 'target', `role "${message.role}" is deprecated; use tools`);
  }
}

function decodeContent(content: OpenAIMessage['content'], path: string): (TextBlock | ImageBlock)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part, i) => decodePart(part, `${path}[${i}]`));
}

function decodePart(part: OpenAIContentPart, path: string): TextBlock | ImageBlock {
  if (part.type === 'text') return { type: 'text', text: (part as { text: string }).text };
  if (part.type === 'refusal') return { type: 'text', text: (part as unknown as { refusal: string }).refusal };
  if (part.type === 'image_url') {
    const image = (part as { image_url: { url: string; detail?: string } }).image_url;
    return {
      type: 'image',
      source: imageSourceFromUrl(image.url),
      ...(image.detail !== undefined && { detail: image.detail }),
    };
  }
  throw invalidField(`${path}.type`, `content part type "${part.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
}

function decodeTool(tool: OpenAITool, index: number): ToolDefinition {
  if (tool.type !== 'function') {
    throw invalidField(`tools[${index}].type`, `tool type "${tool.type}" cannot be translated to another protocol`, 'unsupported_parameter');
  }
  const fn = tool.function;
  return {
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    parameters: fn.parameters ?? { type: 'object', properties: {} },
    ...(typeof fn.strict === 'boolean' && { strict: fn.strict }),
  };
}

function decodeToolChoice(choice: OpenAIToolChoice): ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  if (choice.type === 'function') return { type: 'tool', name: choice.function.name };
  throw invalidField('tool_choice', `tool_choice type "${(choice as { type: string }).type}" cannot be translated`, 'unsupported_parameter');
}

function decodeResponseFormat(format: unknown): ResponseFormat {
  const f = format as { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean | null } };
  if (f.type === 'text' || f.type === 'json_object') return { type: f.type };
  if (f.type === 'json_schema' && f.json_schema !== undefined) {
    return {
      type: 'json_schema',
      schema: f.json_schema.schema ?? {},
      ...(f.json_schema.name !== undefined && { name: f.json_schema.name }),
      ...(typeof f.json_schema.strict === 'boolean' && { strict: f.json_schema.strict }),
    };
  }
  throw invalidField('response_format.type', `response format "${f.type}" cannot be translated`, 'unsupported_parameter');
}
