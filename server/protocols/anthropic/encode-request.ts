import type { ChatRequest, ContentBlock, ImageBlock, TextBlock } from '../../ir/index.ts';
import { SystemSlot } from '../shared/system-slot.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { isEmptyText } from '../shared/empty-text.ts';
import { dropped } from '../shared/warnings.ts';
import type {
  CacheControl,
  ContentBlock as AnthropicBlock,
  Message as AnthropicMessage,
  TextBlock as AnthropicTextBlock,
  ToolChoice as AnthropicToolChoice,
} from '../../../generated/protocols/anthropic/request.ts';
import type { AnthropicClientTool as AnthropicTool } from './wire.ts';
import { claudeThinking, clientSampling, type ClaudeThinking } from '../shared/claude-thinking.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';
import { asJsonObject } from '../shared/json-object.ts';

/** IR to a Messages request for one lane. Pure. */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  const warnings: TranslationWarning[] = [];
  const system: AnthropicTextBlock[] = [];
  const messages: AnthropicMessage[] = [];
  const systemSlot = new SystemSlot('the top-level system prompt');

  request.messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    // Anthropic messages have no author name (OpenAI's per-message `name`).
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'the message author name'));
    if (systemSlot.takes(message, path, warnings)) {
      message.content.forEach((block, j) => isEmptyText(block) || system.push(encodeSystemText(block, `${path}.content[${j}]`)));
      return;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.flatMap((block, j) => (isEmptyText(block) ? [] : encodeBlock(block, `${path}.content[${j}]`, warnings)));
    if (blocks.length === 0) return; // nothing left to send (see isEmptyText); the turns around it still alternate
    const last = messages[messages.length - 1];
    // Anthropic wants alternating turns: a tool turn and the user turn after it become one user turn.
    if (last !== undefined && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  });

  const thinking = encodeThinking(request, lane, warnings);
  const body: Record<string, unknown> = {
    model: lane.model,
    max_tokens: thinking.maxTokens ?? lane.defaultMaxTokens,
    messages,
  };
  if (thinking.thinking !== undefined) body.thinking = thinking.thinking;
  if (system.length > 0) {
    const only = system[0];
    body.system = system.length === 1 && only !== undefined && only.cache_control === undefined ? only.text : system;
  }
  if (request.tools !== undefined) {
    body.tools = request.tools.map(
      (tool): AnthropicTool => ({
        name: tool.name,
        ...(tool.description !== undefined && { description: tool.description }),
        input_schema: asJsonObject(tool.parameters),
        ...(tool.strict !== undefined && { strict: tool.strict }),
        ...(tool.cacheControl !== undefined && { cache_control: tool.cacheControl as CacheControl }),
      }),
    );
  }
  const toolChoice = encodeToolChoice(request);
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (request.stopSequences !== undefined) body.stop_sequences = request.stopSequences;
  const { temperature, topP, topK } = thinking.sampling;
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (topK !== undefined) body.top_k = topK;
  if (request.seed !== undefined) warnings.push(dropped('seed', 'the sampling seed'));
  if (request.responseFormat !== undefined) {
    const format = request.responseFormat;
    if (format.type === 'json_object') {
      throw unsupportedField('response_format', 'Anthropic', 'JSON mode without a schema has no equivalent; send a json_schema format');
    }
    if (format.type === 'json_schema') {
      body.output_config = { format: { type: 'json_schema', schema: format.schema } };
      if (format.name !== undefined) warnings.push(dropped('response_format.json_schema.name', 'the schema name'));
    }
  }
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  if (request.stream) body.stream = true;
  return { body, warnings };
}

function encodeThinking(request: ChatRequest, lane: LaneContext, warnings: TranslationWarning[]): ClaudeThinking {
  if (request.reasoning === undefined || reasoningRefusedBy(request.reasoning, lane.model, warnings))
    return { maxTokens: request.maxTokens, sampling: clientSampling(request) };
  return claudeThinking(request, lane.defaultMaxTokens, warnings, 'anthropic');
}

function encodeSystemText(block: ContentBlock, path: string): AnthropicTextBlock {
  if (block.type !== 'text') throw unsupportedField(path, 'Anthropic', 'system prompts can only hold text');
  return encodeText(block);
}

function encodeText(block: TextBlock): AnthropicTextBlock {
  // The IR carries a cache hint verbatim, as an Anthropic-shaped ingress schema checked it.
  return { type: 'text', text: block.text, ...(block.cacheControl !== undefined && { cache_control: block.cacheControl as CacheControl }) };
}

function encodeImage(block: ImageBlock, path: string, warnings: TranslationWarning[]): AnthropicBlock {
  if (block.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'image detail level'));
  const source =
    block.source.kind === 'base64'
      ? { type: 'base64' as const, media_type: block.source.mediaType, data: block.source.data }
      : { type: 'url' as const, url: block.source.url };
  return { type: 'image', source };
}

function encodeBlock(block: ContentBlock, path: string, warnings: TranslationWarning[]): AnthropicBlock[] {
  switch (block.type) {
    case 'text':
      return [encodeText(block)];
    case 'image':
      return [encodeImage(block, path, warnings)];
    case 'tool_call':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: argumentsToObject(block.arguments, `${path}.arguments`) }];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: block.callId,
          content: block.content.flatMap((part, k) =>
            isEmptyText(part) ? [] : [part.type === 'text' ? encodeText(part) : encodeImage(part, `${path}.content[${k}]`, warnings)],
          ),
          ...(block.isError && { is_error: true }),
        },
      ];
    case 'reasoning':
      // Anthropic refuses thinking blocks without its own signature; another protocol's cannot pass.
      if (block.origin !== undefined && block.origin !== 'anthropic') {
        warnings.push(dropped(path, `reasoning signed by the ${block.origin} protocol`));
        return [];
      }
      if (block.redacted !== undefined) return [{ type: 'redacted_thinking', data: block.redacted }];
      if (block.signature !== undefined) return [{ type: 'thinking', thinking: block.text, signature: block.signature }];
      warnings.push(dropped(path, 'unsigned reasoning from another provider'));
      return [];
  }
}

function encodeToolChoice(request: ChatRequest): AnthropicToolChoice | undefined {
  const choice = request.toolChoice;
  const noParallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return request.parallelToolCalls === false && request.tools !== undefined ? { type: 'auto', ...noParallel } : undefined;
  switch (choice.type) {
    case 'auto':
      return { type: 'auto', ...noParallel };
    case 'required':
      return { type: 'any', ...noParallel };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', name: choice.name, ...noParallel };
  }
}
