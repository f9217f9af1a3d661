// TypeScript views of the OpenAI Chat Completions wire format, as far as the codec reads or writes
// it. The authority is spec/protocols/openai/*.schema.json; bodies are validated against it first.

export interface OpenAITextPart { type: 'text'; text: string }
export interface OpenAIImagePart { type: 'image_url'; image_url: { url: string; detail?: string } }
export type OpenAIContentPart = OpenAITextPart | OpenAIImagePart | { type: string; [key: string]: unknown };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | OpenAIContentPart[] | null;
  name?: string;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  refusal?: string | null;
  [key: string]: unknown;
}

export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown; strict?: boolean | null };
}

export type OpenAIToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; [key: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown } | null;
}

export interface OpenAIResponseMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: OpenAIToolCall[];
  /** De-facto extension (DeepSeek, vLLM) carrying reasoning text. */
  reasoning_content?: string | null;
}

export interface OpenAIChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: OpenAIResponseMessage; finish_reason: string | null; logprobs: null }[];
  usage?: OpenAIUsage;
  system_fingerprint?: string | null;
}

export interface OpenAIToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface OpenAIChunkDelta {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  tool_calls?: OpenAIToolCallDelta[];
}

export interface OpenAIChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: OpenAIChunkDelta; finish_reason: string | null; logprobs?: null }[];
  usage?: OpenAIUsage | null;
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
