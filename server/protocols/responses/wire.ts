// TypeScript views of the OpenAI Responses wire format, as far as the codec reads or writes it. The
// authority is spec/protocols/responses/*.schema.json; bodies are validated against it first.

export interface ResponsesInputTextPart { type: 'input_text'; text: string; prompt_cache_breakpoint?: unknown }
export interface ResponsesInputImagePart { type: 'input_image'; image_url?: string | null; file_id?: string | null; detail?: string | null; prompt_cache_breakpoint?: unknown }
export interface ResponsesOutputTextPart { type: 'output_text'; text: string; annotations?: unknown[]; logprobs?: unknown[] }
export interface ResponsesRefusalPart { type: 'refusal'; refusal: string }

export type ResponsesContentPart =
  | ResponsesInputTextPart
  | ResponsesInputImagePart
  | ResponsesOutputTextPart
  | ResponsesRefusalPart
  | { type: string; [key: string]: unknown };

export interface ResponsesMessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ResponsesContentPart[];
  id?: string;
  status?: string;
  phase?: string | null;
}

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  call_id?: string | null;
  output: string | ResponsesContentPart[];
}

export interface ResponsesSummaryText { type: 'summary_text'; text: string }
export interface ResponsesReasoningText { type: 'reasoning_text'; text: string }

export interface ResponsesReasoningItem {
  type: 'reasoning';
  id?: string;
  summary: ResponsesSummaryText[];
  content?: ResponsesReasoningText[];
  encrypted_content?: string | null;
  status?: string;
}

export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | { type: string; [key: string]: unknown };

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: unknown;
  strict?: boolean | null;
  [key: string]: unknown;
}

/** A freeform tool (Codex): the model writes raw text, optionally constrained by a grammar. */
export interface ResponsesCustomTool {
  type: 'custom';
  name: string;
  description?: string | null;
  format?: { type: 'text' } | { type: 'grammar'; syntax?: string; definition?: string } | null;
  [key: string]: unknown;
}

/** An answer's freeform call. */
export interface ResponsesOutputCustomToolCall {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  [key: string]: unknown;
}

export type ResponsesTool = ResponsesFunctionTool | { type: string; [key: string]: unknown };

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string } | { type: string; [key: string]: unknown };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: unknown; strict?: boolean | null; description?: string };

export interface ResponsesOutputMessage {
  type: 'message';
  id: string;
  role: 'assistant';
  status: string;
  content: (ResponsesOutputTextPart | ResponsesRefusalPart | { type: string })[];
}

export interface ResponsesOutputFunctionCall extends ResponsesFunctionCallItem {
  id: string;
  status: string;
}

export type ResponsesOutputItem =
  | ResponsesOutputMessage
  | ResponsesOutputFunctionCall
  | ResponsesReasoningItem
  | { type: string; [key: string]: unknown };

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; [key: string]: unknown };
  output_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown };
}

export interface ResponsesError {
  code: string | null;
  message: string;
  param?: string | null;
  type?: string | null;
}

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status?: string;
  error?: ResponsesError | null;
  incomplete_details?: { reason?: string } | null;
  model: string;
  output: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
}

/** The members of every stream event the decoder reads; each event type uses some of them. */
export interface ResponsesStreamPayload {
  type: string;
  sequence_number?: number;
  response?: ResponsesResponse;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  item_id?: string;
  item?: ResponsesOutputItem;
  part?: { type: string; text?: string; refusal?: string };
  delta?: string;
  arguments?: string;
  /** The `error` event: flat per the SDK types, or nested under `error` by some servers. */
  code?: string | null;
  message?: string;
  param?: string | null;
  error?: { code?: string | null; message?: string; param?: string | null; type?: string | null };
}
