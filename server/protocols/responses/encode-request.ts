import type { ChatRequest, ContentBlock, ImageBlock, Message, ReasoningBlock, ResponseFormat, TextBlock, ToolChoice } from '../../ir/index.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { imageSourceToUrl } from '../shared/data-url.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { openAiSampling } from '../shared/reasoning-models.ts';
import { dropped } from '../shared/warnings.ts';
import { foreignReasoning } from './reasoning-item.ts';
import type {
  ContentPart as ResponsesContentPart,
  FunctionTool as ResponsesFunctionTool,
  InputImagePart as ResponsesInputImagePart,
  InputItem as ResponsesInputItem,
  OutputTextPart as ResponsesOutputTextPart,
  TextFormat as ResponsesTextFormat,
  ToolChoice as ResponsesToolChoice,
} from '../../../generated/protocols/responses/request.ts';
import { asJsonObject } from '../shared/json-object.ts';
import { encodeReasoningSetting } from './reasoning-setting.ts';

const TARGET = 'OpenAI Responses';

/**
 * IR to a Responses request for one lane. Pure. Every message becomes input items in order (a
 * leading system message stays an input message rather than `instructions`: the two mean the same
 * to a stateless request). Nothing asks OpenAI to store anything beyond its own defaults.
 */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    throw unsupportedField('stop', TARGET, 'it has no stop sequences, and ignoring them would change the answer');
  }
  const warnings: TranslationWarning[] = [];
  const input: ResponsesInputItem[] = [];
  request.messages.forEach((message, i) => input.push(...encodeMessage(message, `messages[${i}]`, warnings)));

  const body: Record<string, unknown> = { model: lane.model, input };
  if (request.tools !== undefined)
    body.tools = request.tools.map((tool, i): ResponsesFunctionTool => {
      if (tool.cacheControl !== undefined) warnings.push(dropped(`tools[${i}].cache_control`, 'prompt cache hints'));
      return {
        type: 'function',
        name: tool.name,
        ...(tool.description !== undefined && { description: tool.description }),
        parameters: asJsonObject(tool.parameters),
        // Said explicitly: Responses would otherwise apply strict mode, which rejects many schemas.
        strict: tool.strict ?? false,
      };
    });
  if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  const reasoning = encodeReasoningSetting(request.reasoning, lane.model, request.source, warnings);
  // Reasoning models refuse sampling other than the defaults (shared/reasoning-models.ts).
  const { temperature, topP } = openAiSampling(request, 'responses', lane.model, reasoning?.effort ?? undefined, warnings);
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (request.topK !== undefined) warnings.push(dropped('top_k', 'top-k sampling'));
  if (request.seed !== undefined) warnings.push(dropped('seed', 'the sampling seed'));
  if (request.responseFormat !== undefined) body.text = { format: encodeTextFormat(request.responseFormat) };
  if (request.user !== undefined) body.safety_identifier = request.user;
  if (reasoning !== undefined) body.reasoning = reasoning;
  if (request.stream) body.stream = true;
  return { body, warnings };
}

function encodeMessage(message: Message, path: string, warnings: TranslationWarning[]): ResponsesInputItem[] {
  if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'the message author name'));
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return [{ type: 'message', role: message.role, content: encodeInputContent(message.content, path, warnings) }];
    case 'assistant':
      return encodeAssistant(message.content, path, warnings);
    case 'tool':
      return message.content.flatMap((block, j): ResponsesInputItem[] => {
        const at = `${path}.content[${j}]`;
        if (block.type !== 'tool_result') throw unsupportedField(at, TARGET, `tool messages cannot hold ${block.type} blocks`);
        if (block.isError) warnings.push(dropped(`${at}.is_error`, 'the tool-error flag (function call outputs have none)'));
        const only = block.content[0];
        const output =
          block.content.length === 1 && only?.type === 'text' && only.cacheControl === undefined
            ? only.text
            : block.content.length === 0
              ? ''
              : encodeInputContent(block.content, at, warnings);
        return [{ type: 'function_call_output', call_id: block.callId, output }];
      });
  }
}

function encodeInputContent(content: readonly ContentBlock[], path: string, warnings: TranslationWarning[]): ResponsesContentPart[] {
  return content.map((block, j): ResponsesContentPart => {
    const at = `${path}.content[${j}]`;
    if (block.type === 'text') return { type: 'input_text', text: encodeText(block, at, warnings) };
    if (block.type === 'image') return encodeImage(block);
    throw unsupportedField(at, TARGET, `${block.type} blocks cannot appear in this message`);
  });
}

function encodeText(block: TextBlock, path: string, warnings: TranslationWarning[]): string {
  if (block.cacheControl !== undefined) warnings.push(dropped(`${path}.cache_control`, 'prompt cache hints'));
  if (block.signature !== undefined) warnings.push(dropped(`${path}.signature`, `a text signature issued by the ${block.signature.origin} protocol`));
  return block.text;
}

/** OpenAI wants a detail level on every image; `auto` is what it assumes when there is none. */
function encodeImage(block: ImageBlock): ResponsesInputImagePart {
  return { type: 'input_image', image_url: imageSourceToUrl(block.source), detail: block.detail ?? 'auto' };
}

/**
 * An assistant turn becomes items in block order: text blocks in a row share one message, each
 * tool call is a function_call item, reasoning a reasoning item.
 */
function encodeAssistant(content: readonly ContentBlock[], path: string, warnings: TranslationWarning[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  let text: ResponsesOutputTextPart[] | undefined;
  content.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    if (block.type === 'text') {
      if (text === undefined) {
        text = [];
        items.push({ type: 'message', role: 'assistant', content: text });
      }
      text.push({ type: 'output_text', text: encodeText(block, at, warnings), annotations: [] });
      return;
    }
    text = undefined;
    if (block.type === 'tool_call') {
      if (block.signature !== undefined) warnings.push(dropped(`${at}.signature`, `a tool-call signature issued by the ${block.signature.origin} protocol`));
      items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: block.arguments });
    } else if (block.type === 'reasoning') {
      const item = encodeReasoning(block, at, warnings);
      if (item !== undefined) items.push(item);
    } else {
      throw unsupportedField(at, TARGET, `assistant messages cannot hold ${block.type} blocks`);
    }
  });
  return items;
}

/**
 * Reasoning is replayed only when OpenAI issued it: the model continues from its own item (by id,
 * or from encrypted_content when nothing is stored). Anyone else's reasoning cannot be verified.
 */
function encodeReasoning(block: ReasoningBlock, path: string, warnings: TranslationWarning[]): ResponsesInputItem | undefined {
  if (block.origin !== 'responses') {
    warnings.push(dropped(path, foreignReasoning(block.origin)));
    return undefined;
  }
  // Stateless clients (store: false) send encrypted_content back without an id; OpenAI takes that.
  if (block.id === undefined && block.redacted === undefined) {
    warnings.push(dropped(path, 'a reasoning item with neither its OpenAI id nor its encrypted content'));
    return undefined;
  }
  return {
    type: 'reasoning',
    ...(block.id !== undefined && { id: block.id }),
    summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
    ...(block.redacted !== undefined && { encrypted_content: block.redacted }),
  };
}

function encodeToolChoice(choice: ToolChoice): ResponsesToolChoice {
  if (choice.type === 'tool') return { type: 'function', name: choice.name };
  return choice.type;
}

function encodeTextFormat(format: ResponseFormat): ResponsesTextFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    name: format.name ?? 'response',
    schema: asJsonObject(format.schema),
    ...(format.strict !== undefined && { strict: format.strict }),
  };
}
