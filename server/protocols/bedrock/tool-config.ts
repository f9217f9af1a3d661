import type { ChatRequest, ToolDefinition } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { unsupportedField } from '../shared/invalid-field.ts';
import { reshaped } from '../shared/warnings.ts';
import { cachePointFromControl } from './cache-point.ts';
import type {
  Tool as BedrockTool,
  ToolChoice as BedrockToolChoice,
  ToolConfiguration as BedrockToolConfig,
} from '../../../generated/protocols/bedrock/request.ts';
import { asJsonObject } from '../shared/json-object.ts';

/**
 * The IR's tools and tool choice as a Bedrock toolConfig. Two Bedrock rules shape it: there is no
 * "none" choice, and a history holding toolUse/toolResult blocks is refused without a toolConfig.
 */
export function encodeToolConfig(request: ChatRequest, warnings: TranslationWarning[]): BedrockToolConfig | undefined {
  const history = toolHistory(request);
  const none = request.toolChoice?.type === 'none';
  let tools = request.tools ?? [];
  if (none && !history.used) {
    // Leaving the tools out is how a Bedrock request says "answer without calling a tool".
    if (tools.length > 0)
      warnings.push(reshaped('tool_choice', 'Bedrock has no tool_choice "none": the tool definitions were left out so that the model cannot call them'));
    return undefined;
  }
  if (none) {
    warnings.push(
      reshaped(
        'tool_choice',
        'Bedrock has no tool_choice "none" and needs tool definitions for a conversation with tool calls: the model may still call a tool',
      ),
    );
  }
  if (tools.length === 0 && history.used) {
    if (history.names.length === 0) {
      throw unsupportedField('messages', 'Bedrock', 'the conversation holds tool results but no tool definitions or tool calls to name them');
    }
    tools = history.names.map((name): ToolDefinition => ({ name, parameters: { type: 'object', properties: {} } }));
    warnings.push(
      reshaped('tools', `Bedrock needs tool definitions for a conversation with tool calls: ${history.names.join(', ')} declared with an empty object schema`),
    );
  }
  // The schema wants at least one tool (a non-empty tuple type).
  const [first, ...rest] = tools.flatMap((tool, i) => encodeTool(tool, `tools[${i}]`, warnings));
  if (first === undefined) return undefined;
  const choice = none ? undefined : encodeToolChoice(request);
  return { tools: [first, ...rest], ...(choice !== undefined && { toolChoice: choice }) };
}

function encodeTool(tool: ToolDefinition, path: string, warnings: TranslationWarning[]): BedrockTool[] {
  const spec: BedrockTool = {
    toolSpec: {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: { json: asJsonObject(tool.parameters) },
      ...(tool.strict !== undefined && { strict: tool.strict }),
    },
  };
  return tool.cacheControl === undefined ? [spec] : [spec, cachePointFromControl(tool.cacheControl, `${path}.cache_control`, warnings)];
}

function encodeToolChoice(request: ChatRequest): BedrockToolChoice | undefined {
  const choice = request.toolChoice;
  switch (choice?.type) {
    case undefined:
    case 'none':
      return undefined;
    case 'auto':
      return { auto: {} };
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
  }
}

/** Whether the conversation holds tool blocks, and the tool names its calls use (first use order). */
function toolHistory(request: ChatRequest): { used: boolean; names: string[] } {
  const names = new Set<string>();
  let used = false;
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === 'tool_call') names.add(block.name);
      if (block.type === 'tool_call' || block.type === 'tool_result') used = true;
    }
  }
  return { used, names: [...names] };
}
