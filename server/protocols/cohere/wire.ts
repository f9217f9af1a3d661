// TypeScript views of the Cohere v2 Chat wire format (snake_case, as sent on the wire; the SDK's
// own types are camelCase), as far as the codec reads or writes it. The authority is
// spec/protocols/cohere/*.schema.json.

export interface CohereTextPart { type: 'text'; text: string }
export interface CohereImagePart { type: 'image_url'; image_url: { url: string; detail?: string } }
export interface CohereThinkingPart { type: 'thinking'; thinking: string }
export interface CohereDocument { data: Record<string, unknown>; id?: string }
export interface CohereDocumentPart { type: 'document'; document: CohereDocument }

export type CoherePart = CohereTextPart | CohereImagePart | CohereThinkingPart | CohereDocumentPart;

export interface CohereToolCall {
  id: string;
  type: 'function';
  function?: { name?: string; arguments?: string };
}

export interface CohereSystemMessage { role: 'system'; content: string | CoherePart[] }
export interface CohereUserMessage { role: 'user'; content: string | CoherePart[] }
export interface CohereAssistantMessage {
  role: 'assistant';
  content?: string | CoherePart[];
  tool_plan?: string;
  tool_calls?: CohereToolCall[];
  citations?: unknown[];
}
export interface CohereToolMessage { role: 'tool'; tool_call_id: string; content: string | CoherePart[] }

export type CohereMessage = CohereSystemMessage | CohereUserMessage | CohereAssistantMessage | CohereToolMessage;

export interface CohereTool {
  type: string;
  function: { name: string; description?: string; parameters: unknown };
}

export type CohereResponseFormat =
  | { type: 'text' }
  | { type: 'json_object'; json_schema?: unknown }
  | { type: string; [key: string]: unknown };

export interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number; search_units?: number; classifications?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  cached_tokens?: number;
}

export interface CohereResponseMessage {
  role: 'assistant';
  content?: (CohereTextPart | CohereThinkingPart | { type: string })[];
  tool_plan?: string;
  tool_calls?: CohereToolCall[];
  citations?: unknown[];
}

export interface CohereChatResponse {
  id: string;
  finish_reason: string;
  message: CohereResponseMessage;
  usage?: CohereUsage;
  logprobs?: unknown[];
}

/** One stream event; every event type uses a subset of these members. */
export interface CohereStreamEvent {
  type: string;
  id?: string;
  index?: number;
  delta?: {
    message?: {
      role?: string;
      content?: { type?: string; text?: string; thinking?: string };
      tool_plan?: string;
      tool_calls?: { id?: string; type?: string; function?: { name?: string; arguments?: string } };
    };
    finish_reason?: string;
    error?: string;
    usage?: CohereUsage;
  };
}

export interface CohereErrorBody {
  message: string;
  id?: string;
}
