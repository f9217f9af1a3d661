import type { ChatRequest, ContentBlock, Message, ResponseFormat, ToolChoice } from '../../ir/index.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { imageSourceToUrl } from '../shared/data-url.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { openAiSampling } from '../shared/reasoning-models.ts';
import { dropped } from '../shared/warnings.ts';
import type {
  AssistantMessage as OpenAIAssistantMessage,
  ContentPart as OpenAIContentPart,
  Message as OpenAIMessage,
  Tool as OpenAITool,
  ToolCall as OpenAIToolCall,
  ToolChoice as OpenAIToolChoice,
} from '../../../generated/protocols/openai/request.ts';
import { encodeEffort } from './reasoning.ts';
import { asJsonObject } from '../shared/json-object.ts';

/** IR to a Chat Completions request for one lane. Pure. */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  const warnings: TranslationWarning[] = [];
  const messages: OpenAIMessage[] = [];
  request.messages.forEach((message, i) => messages.push(...encodeMessage(message, `messages[${i}]`, warnings)));

  const body: Record<string, unknown> = { model: lane.model, messages };
  if (request.tools !== undefined)
    body.tools = request.tools.map((tool, i): OpenAITool => {
      if (tool.cacheControl !== undefined) warnings.push(dropped(`tools[${i}].cache_control`, 'prompt cache hints'));
      return {
        type: 'function',
        function: {
          name: tool.name,
          ...(tool.description !== undefined && { description: tool.description }),
          parameters: asJsonObject(tool.parameters),
          ...(tool.strict !== undefined && { strict: tool.strict }),
        },
      };
    });
  if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
  if (request.stopSequences !== undefined) body.stop = request.stopSequences;
  const effort = encodeEffort(request.reasoning, lane.model, request.source, warnings);
  // Reasoning models refuse sampling other than the defaults (shared/reasoning-models.ts).
  const { temperature, topP } = openAiSampling(request, 'openai', lane.model, effort, warnings);
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (request.topK !== undefined) warnings.push(dropped('top_k', 'top-k sampling'));
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.responseFormat !== undefined) body.response_format = encodeResponseFormat(request.responseFormat);
  if (request.user !== undefined) body.user = request.user;
  if (effort !== undefined) body.reasoning_effort = effort;
  if (request.stream) {
    body.stream = true;
    // Always ask for usage: spend and metrics need it even when the client did not.
    body.stream_options = { include_usage: true };
  }
  return { body, warnings };
}

function encodeMessage(message: Message, path: string, warnings: TranslationWarning[]): OpenAIMessage[] {
  const name = message.name !== undefined ? { name: message.name } : {};
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return [{ role: message.role, content: encodeContent(message.content, path, warnings), ...name }];
    case 'assistant':
      return [encodeAssistant(message, path, warnings)];
    case 'tool':
      return message.content.flatMap((block, j): OpenAIMessage[] => {
        if (block.type !== 'tool_result') return [];
        if (block.isError) warnings.push(dropped(`${path}.content[${j}].is_error`, 'the tool-error flag (OpenAI tool messages have none)'));
        const texts = block.content.flatMap((part, k) => {
          if (part.type === 'text') {
            if (part.cacheControl !== undefined) warnings.push(dropped(`${path}.content[${j}].content[${k}].cache_control`, 'prompt cache hints'));
            return [part.text];
          }
          throw unsupportedField(`${path}.content[${j}].content[${k}]`, 'OpenAI Chat', 'tool results can only hold text');
        });
        return [{ role: 'tool', tool_call_id: block.callId, content: texts.join('\n\n') }];
      });
  }
}

function encodeAssistant(message: Message, path: string, warnings: TranslationWarning[]): OpenAIAssistantMessage {
  const texts: string[] = [];
  const toolCalls: OpenAIToolCall[] = [];
  message.content.forEach((block, j) => {
    if (block.type === 'text') {
      if (block.cacheControl !== undefined) warnings.push(dropped(`${path}.content[${j}].cache_control`, 'prompt cache hints'));
      texts.push(block.text);
    } else if (block.type === 'tool_call') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } });
    } else if (block.type === 'reasoning') {
      warnings.push(dropped(`${path}.content[${j}]`, 'reasoning blocks (OpenAI Chat cannot replay them)'));
    } else {
      throw unsupportedField(`${path}.content[${j}]`, 'OpenAI Chat', `assistant messages cannot hold ${block.type} blocks`);
    }
  });
  const out: OpenAIAssistantMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (message.name !== undefined) out.name = message.name;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  return out;
}

function encodeContent(content: readonly ContentBlock[], path: string, warnings: TranslationWarning[]): string | OpenAIContentPart[] {
  const first = content[0];
  if (content.length === 1 && first?.type === 'text' && first.cacheControl === undefined) return first.text;
  return content.map((block, j): OpenAIContentPart => {
    if (block.type === 'text') {
      if (block.cacheControl !== undefined) warnings.push(dropped(`${path}.content[${j}].cache_control`, 'prompt cache hints'));
      return { type: 'text', text: block.text };
    }
    if (block.type === 'image') {
      return { type: 'image_url', image_url: { url: imageSourceToUrl(block.source), ...(block.detail !== undefined && { detail: block.detail }) } };
    }
    throw unsupportedField(`${path}.content[${j}]`, 'OpenAI Chat', `${block.type} blocks cannot appear in this message`);
  });
}

function encodeToolChoice(choice: ToolChoice): OpenAIToolChoice {
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice.type;
}

function encodeResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name ?? 'response',
      schema: format.schema,
      ...(format.strict !== undefined && { strict: format.strict }),
    },
  };
}
