import type {
  ChatRequest,
  ContentBlock,
  ImageBlock,
  Message,
  ReasoningBlock,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
  UnmappedField,
} from '../../ir/index.ts';
import { imageSourceFromUrl } from '../shared/data-url.ts';
import { freeformArguments, freeformParameters } from '../shared/freeform-tool.ts';
import { invalidField } from '../shared/invalid-field.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import { reasoningBlock } from './reasoning-item.ts';
import { FIELD_RULES, MAPPED_FIELDS } from './request-fields.ts';
import type {
  ContentPart as ResponsesContentPart,
  FunctionCallOutputItem as ResponsesFunctionCallOutputItem,
  InputImagePart as ResponsesInputImagePart,
  InputItem as ResponsesInputItem,
  Message as ResponsesMessageItem,
  ReasoningItem as ResponsesReasoningItem,
  ResponsesRequest,
  TextFormat as ResponsesTextFormat,
  Tool as ResponsesTool,
  ToolChoice as ResponsesToolChoice,
} from '../../../generated/protocols/responses/request.ts';
import { type Branch, isType } from '../shared/schema-branch.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import type { ResponsesCustomToolCallInput, ResponsesCustomToolCallOutputInput } from './wire.ts';
import { plainCallId, splitCarriedId } from '../shared/signature-carrier.ts';
import { decodeReasoningSetting } from './reasoning-setting.ts';

/**
 * Responses request (schema-validated) to IR. `instructions` becomes a system message ahead of the
 * input. Input items are flat; the assistant-side items of one turn (reasoning, assistant message,
 * function calls) are gathered into one assistant message, and each function_call_output becomes
 * its own tool message (as OpenAI Chat has one tool message per result). Item `id`s and `status`es
 * of replayed output are bookkeeping the model never reads and are not carried, except a reasoning
 * item's id, which OpenAI needs to continue from that reasoning.
 */
export function decodeRequest(body: Record<string, unknown>): ChatRequest {
  const request = validatedRequest<ResponsesRequest>(body);
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages: Message[] = [];
  if (typeof request.instructions === 'string') messages.push({ role: 'system', content: [{ type: 'text', text: request.instructions }] });
  const input = request.input;
  if (typeof input === 'string') messages.push({ role: 'user', content: input === '' ? [] : [{ type: 'text', text: input }] });
  else if (input !== undefined) messages.push(...decodeItems(input, unmapped));

  const text = request.text;
  if (typeof text?.verbosity === 'string')
    unmapped.push({ path: 'text.verbosity', value: text.verbosity, disposition: 'warn', reason: 'output verbosity hint' });
  const maxTokens = request.max_output_tokens;
  const user = request.safety_identifier ?? request.user;
  const reasoning = decodeReasoningSetting(request.reasoning, unmapped);
  return {
    model: request.model,
    messages,
    stream: request.stream === true,
    // Responses streams always end with the usage in response.completed.
    streamUsage: true,
    ...(request.tools !== undefined && { tools: request.tools.map((tool, i) => decodeTool(tool, i, unmapped)) }),
    ...(request.tool_choice !== undefined && { toolChoice: decodeToolChoice(request.tool_choice) }),
    ...(typeof request.parallel_tool_calls === 'boolean' && { parallelToolCalls: request.parallel_tool_calls }),
    ...(typeof maxTokens === 'number' && { maxTokens }),
    ...(typeof request.temperature === 'number' && { temperature: request.temperature }),
    ...(typeof request.top_p === 'number' && { topP: request.top_p }),
    ...(text?.format !== undefined && { responseFormat: decodeTextFormat(text.format, unmapped) }),
    ...(typeof user === 'string' && { user }),
    ...(reasoning !== undefined && { reasoning }),
    source: 'responses',
    unmapped,
  };
}

function decodeItems(items: readonly ResponsesInputItem[], unmapped: UnmappedField[]): Message[] {
  const messages: Message[] = [];
  /** The assistant turn being gathered, while consecutive items belong to it. */
  let turn: ContentBlock[] | undefined;
  const assistantTurn = (): ContentBlock[] => {
    if (turn === undefined) {
      turn = [];
      messages.push({ role: 'assistant', content: turn });
    }
    return turn;
  };
  items.forEach((item, i) => {
    const path = `input[${i}]`;
    switch (item.type) {
      case undefined:
      case 'message': {
        // No type, or "message": the schema's first two branches, both a Message.
        const message = item as ResponsesMessageItem;
        if (message.role !== 'assistant') {
          turn = undefined;
          messages.push({ role: message.role, content: decodeInputContent(message.content, `${path}.content`, unmapped) });
          return;
        }
        if (typeof message.phase === 'string')
          unmapped.push({ path: `${path}.phase`, value: message.phase, disposition: 'warn', reason: 'assistant message phase' });
        // A second assistant message with text opens a new turn, so two replayed answers stay two.
        if (turn?.some((b) => b.type === 'text') === true) turn = undefined;
        assistantTurn().push(...decodeAssistantContent(message.content, `${path}.content`, unmapped));
        return;
      }
      case 'function_call': {
        const call = item as Branch<ResponsesInputItem, 'function_call'>;
        assistantTurn().push({ type: 'tool_call', ...splitCarriedId(call.call_id), name: call.name, arguments: call.arguments });
        return;
      }
      case 'reasoning':
        assistantTurn().push(decodeReasoning(item as Branch<ResponsesInputItem, 'reasoning'>, path, unmapped));
        return;
      case 'custom_tool_call': {
        // A freeform call: its raw text travels as the one string argument of a function call (and a
        // Gemini signature in its call_id, as with function calls).
        const call = item as ResponsesCustomToolCallInput;
        assistantTurn().push({ type: 'tool_call', ...splitCarriedId(call.call_id), name: call.name, arguments: freeformArguments(call.input) });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        turn = undefined;
        messages.push({
          role: 'tool',
          content: [decodeFunctionOutput(item as ResponsesFunctionCallOutputItem | ResponsesCustomToolCallOutputInput, path, unmapped)],
        });
        return;
      case 'item_reference':
        throw invalidField(`${path}.type`, 'an item stored at OpenAI cannot be fetched for another protocol', 'unsupported_parameter');
      default:
        throw invalidField(`${path}.type`, `input item type "${item.type}" cannot be translated to another protocol`, 'unsupported_parameter');
    }
  });
  return messages;
}

function decodeInputContent(content: string | ResponsesContentPart[], path: string, unmapped: UnmappedField[]): (TextBlock | ImageBlock)[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part, j) => decodeInputPart(part, `${path}[${j}]`, unmapped));
}

function decodeInputPart(part: ResponsesContentPart, path: string, unmapped: UnmappedField[]): TextBlock | ImageBlock {
  const hint = isType(part, 'input_text') || isType(part, 'input_image') || isType(part, 'input_file') ? part.prompt_cache_breakpoint : undefined;
  if (hint !== undefined && hint !== null)
    unmapped.push({ path: `${path}.prompt_cache_breakpoint`, value: hint, disposition: 'warn', reason: 'prompt cache breakpoint' });
  if (isType(part, 'input_text')) return { type: 'text', text: part.text };
  if (isType(part, 'input_image')) return decodeImage(part, path);
  throw invalidField(`${path}.type`, `content part type "${part.type}" cannot be translated to another protocol yet`, 'unsupported_parameter');
}

function decodeImage(part: ResponsesInputImagePart, path: string): ImageBlock {
  if (typeof part.image_url !== 'string') {
    throw invalidField(`${path}.file_id`, 'an image uploaded to OpenAI (file_id) cannot be sent to another provider; send image_url', 'unsupported_parameter');
  }
  return { type: 'image', source: imageSourceFromUrl(part.image_url), ...(typeof part.detail === 'string' && { detail: part.detail }) };
}

/** Earlier output replayed as input: output text (or input text, which the SDK also allows) and refusals. */
function decodeAssistantContent(content: string | ResponsesContentPart[], path: string, unmapped: UnmappedField[]): TextBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part, j): TextBlock => {
    const at = `${path}[${j}]`;
    if (isType(part, 'output_text')) {
      const annotations = part.annotations;
      if (Array.isArray(annotations) && annotations.length > 0)
        unmapped.push({ path: `${at}.annotations`, value: annotations, disposition: 'warn', reason: 'citations' });
      return { type: 'text', text: part.text };
    }
    if (isType(part, 'input_text')) return { type: 'text', text: part.text };
    if (isType(part, 'refusal')) return { type: 'text', text: part.refusal };
    throw invalidField(`${at}.type`, `assistant content part type "${part.type}" cannot be translated to another protocol`, 'unsupported_parameter');
  });
}

/** Raw reasoning text beside a summary has no IR slot: the summary is the text the IR keeps. */
function decodeReasoning(item: ResponsesReasoningItem, path: string, unmapped: UnmappedField[]): ReasoningBlock {
  if (item.summary.length > 0 && (item.content ?? []).length > 0) {
    unmapped.push({ path: `${path}.content`, value: item.content, disposition: 'warn', reason: 'raw reasoning text beside its summary' });
  }
  return reasoningBlock(item);
}

function decodeFunctionOutput(
  item: ResponsesFunctionCallOutputItem | ResponsesCustomToolCallOutputInput,
  path: string,
  unmapped: UnmappedField[],
): ContentBlock {
  if (typeof item.call_id !== 'string') throw invalidField(`${path}.call_id`, 'a function call output must name the call it answers');
  const content =
    typeof item.output === 'string'
      ? item.output === ''
        ? []
        : [{ type: 'text' as const, text: item.output }]
      : item.output.map((part, k) => decodeInputPart(part, `${path}.output[${k}]`, unmapped));
  return { type: 'tool_result', callId: plainCallId(item.call_id), content, isError: false };
}

/** Function tool members the IR keeps; others (defer_loading, output_schema, ...) are reported. */
const TOOL_FIELDS = new Set(['type', 'name', 'description', 'parameters', 'strict']);

function decodeTool(tool: ResponsesTool, index: number, unmapped: UnmappedField[]): ToolDefinition {
  if (isType(tool, 'custom')) return decodeCustomTool(tool, index, unmapped);
  if (!isType(tool, 'function')) {
    throw invalidField(`tools[${index}].type`, `tool type "${tool.type}" runs at OpenAI and cannot be translated to another protocol`, 'unsupported_parameter');
  }
  const fn = tool;
  for (const [key, value] of Object.entries(fn)) {
    if (!TOOL_FIELDS.has(key) && value !== undefined && value !== null)
      unmapped.push({ path: `tools[${index}].${key}`, value, disposition: 'warn', reason: 'function tool option' });
  }
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' && { description: fn.description }),
    parameters: fn.parameters ?? { type: 'object', properties: {} },
    // Responses applies strict mode unless told otherwise (Chat Completions does the opposite).
    strict: fn.strict ?? true,
  };
}

/**
 * A freeform (Codex `custom`) tool becomes a function with one string argument, `input`. A grammar
 * cannot be enforced by another provider: it is put in the argument's description for the model
 * to follow, with a warning.
 */
function decodeCustomTool(tool: Branch<ResponsesTool, 'custom'>, index: number, unmapped: UnmappedField[]): ToolDefinition {
  // The schema leaves a custom tool's format open; "grammar" (syntax, definition) is the one read.
  const format = tool.format;
  let note = 'The raw input for this tool, as free text (not JSON).';
  if (format !== undefined && format.type === 'grammar') {
    note += ` It must follow this ${String(format.syntax ?? '')} grammar:\n${String(format.definition ?? '')}`;
    unmapped.push({ path: `tools[${index}].format`, value: format, disposition: 'warn', reason: 'custom tool grammar (described to the model, not enforced)' });
  }
  for (const [key, value] of Object.entries(tool)) {
    if (!CUSTOM_TOOL_FIELDS.has(key) && value !== undefined && value !== null)
      unmapped.push({ path: `tools[${index}].${key}`, value, disposition: 'warn', reason: 'custom tool option' });
  }
  return {
    name: tool.name,
    ...(typeof tool.description === 'string' && { description: tool.description }),
    parameters: freeformParameters(note),
    freeform: true,
  };
}

const CUSTOM_TOOL_FIELDS = new Set(['type', 'name', 'description', 'format']);

function decodeToolChoice(choice: ResponsesToolChoice): ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  if (isType(choice, 'function') || isType(choice, 'custom')) return { type: 'tool', name: choice.name };
  throw invalidField('tool_choice.type', `tool_choice type "${choice.type}" cannot be translated to another protocol`, 'unsupported_parameter');
}

function decodeTextFormat(format: ResponsesTextFormat, unmapped: UnmappedField[]): ResponseFormat {
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (isType(format, 'json_schema')) {
    if (typeof format.description === 'string')
      unmapped.push({ path: 'text.format.description', value: format.description, disposition: 'warn', reason: 'schema description' });
    return {
      type: 'json_schema',
      name: format.name,
      schema: format.schema,
      ...(typeof format.strict === 'boolean' && { strict: format.strict }),
    };
  }
  throw invalidField('text.format.type', `text format "${format.type}" cannot be translated`, 'unsupported_parameter');
}
