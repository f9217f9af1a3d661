import type { ChatRequest, ContentBlock, ImageBlock, Message, ResponseFormat, TextBlock, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { imageSourceFromUrl } from '../shared/data-url.ts';
import { invalidField, unsupportedField } from '../shared/invalid-field.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type {
  ContentPart,
  Message as OpenAIMessage,
  OpenAIRequest,
  ResponseFormat as OpenAIResponseFormat,
  Tool,
  ToolChoice as OpenAIToolChoice,
} from '../../../generated/protocols/openai/request.ts';
import { isType } from '../shared/schema-branch.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeReasoningEffort } from './reasoning.ts';

/** Chat Completions request (schema-validated) to IR. */
export function decodeRequest(body: Record<string, unknown>): ChatRequest {
  const request = validatedRequest<OpenAIRequest>(body);
  const messages = request.messages.map((m, i) => decodeMessage(m, `messages[${i}]`));
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  const stop = request.stop;
  const user = request.safety_identifier ?? request.user;
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const reasoning = decodeReasoningEffort(request.reasoning_effort, unmapped);
  return {
    model: request.model,
    messages,
    stream: request.stream === true,
    streamUsage: request.stream_options?.include_usage === true,
    ...(request.tools !== undefined && { tools: request.tools.map(decodeTool) }),
    ...(request.tool_choice !== undefined && { toolChoice: decodeToolChoice(request.tool_choice) }),
    ...(typeof request.parallel_tool_calls === 'boolean' && { parallelToolCalls: request.parallel_tool_calls }),
    ...(maxTokens !== undefined && maxTokens !== null && { maxTokens }),
    ...(stop !== undefined && stop !== null && { stopSequences: typeof stop === 'string' ? [stop] : stop }),
    ...(typeof request.temperature === 'number' && { temperature: request.temperature }),
    ...(typeof request.top_p === 'number' && { topP: request.top_p }),
    ...(typeof request.seed === 'number' && { seed: request.seed }),
    ...(request.response_format !== undefined && { responseFormat: decodeResponseFormat(request.response_format) }),
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
      for (const [k, call] of (message.tool_calls ?? []).entries()) {
        if (!isType(call, 'function'))
          throw invalidField(
            `${path}.tool_calls[${k}].type`,
            `tool call type "${call.type}" cannot be translated to another protocol`,
            'unsupported_parameter',
          );
        content.push({ type: 'tool_call', ...splitCarriedId(call.id), name: call.function.name, arguments: call.function.arguments });
      }
      return { role: 'assistant', content, ...name };
    }
    case 'tool': {
      const result = decodeContent(message.content, `${path}.content`);
      const onlyText = result.filter((b): b is TextBlock => b.type === 'text');
      return {
        role: 'tool',
        content: [{ type: 'tool_result', callId: plainCallId(message.tool_call_id), content: onlyText, isError: false }],
      };
    }
    default:
      throw unsupportedField(`${path}.role`, 'target', `role "${message.role}" is deprecated; use tools`);
  }
}

function decodeContent(content: string | ContentPart[] | null | undefined, path: string): (TextBlock | ImageBlock)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part, i) => decodePart(part, `${path}[${i}]`));
}

function decodePart(part: ContentPart, path: string): TextBlock | ImageBlock {
  if (isType(part, 'text')) return { type: 'text', text: part.text };
  if (isType(part, 'refusal')) return { type: 'text', text: part.refusal };
  if (isType(part, 'image_url')) {
    const image = part.image_url;
    return {
      type: 'image',
      source: imageSourceFromUrl(image.url),
      ...(image.detail !== undefined && { detail: image.detail }),
    };
  }
  throw invalidField(`${path}.type`, `content part type "${part.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
}

function decodeTool(tool: Tool, index: number): ToolDefinition {
  if (!isType(tool, 'function')) {
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
  if (isType(choice, 'function')) return { type: 'tool', name: choice.function.name };
  throw invalidField('tool_choice', `tool_choice type "${choice.type}" cannot be translated`, 'unsupported_parameter');
}

function decodeResponseFormat(format: OpenAIResponseFormat): ResponseFormat {
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (isType(format, 'json_schema')) {
    const { json_schema: spec } = format;
    return {
      type: 'json_schema',
      schema: spec.schema ?? {},
      name: spec.name,
      ...(typeof spec.strict === 'boolean' && { strict: spec.strict }),
    };
  }
  throw invalidField('response_format.type', `response format "${format.type}" cannot be translated`, 'unsupported_parameter');
}
