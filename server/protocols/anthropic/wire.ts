// TypeScript views of the Anthropic Messages wire format (API versions 2023-06-01 and 2026-10-21),
// as far as the codec reads or writes it. The authority is spec/protocols/anthropic/*.schema.json.

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: string; [key: string]: unknown };

export interface AnthropicTextBlock { type: 'text'; text: string; cache_control?: unknown; citations?: unknown[] | null }
export interface AnthropicImageBlock { type: 'image'; source: AnthropicImageSource; cache_control?: unknown }
export interface AnthropicToolUseBlock { type: 'tool_use'; id: string; name: string; input: unknown; cache_control?: unknown }
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | { type: string })[];
  is_error?: boolean;
  cache_control?: unknown;
}
export interface AnthropicThinkingBlock { type: 'thinking'; thinking: string; signature: string }
export interface AnthropicRedactedThinkingBlock { type: 'redacted_thinking'; data: string }

export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | AnthropicBlock[];
}

export interface AnthropicTool {
  type?: string;
  name: string;
  description?: string;
  input_schema?: unknown;
  cache_control?: unknown;
  strict?: boolean;
  [key: string]: unknown;
}

export interface AnthropicToolChoice {
  type: 'auto' | 'any' | 'tool' | 'none';
  name?: string;
  disable_parallel_tool_use?: boolean;
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
  [key: string]: unknown;
}

export interface AnthropicMessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}
