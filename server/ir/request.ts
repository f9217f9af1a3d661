import type { ContentBlock } from './blocks.ts';
import type { ProtocolId } from './protocol-id.ts';

/**
 * Where instructions and turns come from. `system` and `developer` stay distinct and keep their
 * position in the conversation; encoders for protocols with a single system slot hoist them.
 */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface Message {
  readonly role: Role;
  readonly content: readonly ContentBlock[];
  /** OpenAI's per-message `name`, kept for protocols that have one. */
  readonly name?: string;
}

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** The JSON Schema of the arguments, verbatim. */
  readonly parameters: unknown;
  readonly strict?: boolean;
  readonly cacheControl?: unknown;
  /**
   * A Responses freeform (`custom`) tool: `parameters` is one string argument, `input`
   * (shared/freeform-tool.ts), and a Responses client gets its calls back as custom_tool_call items.
   */
  readonly freeform?: boolean;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | { readonly type: 'json_schema'; readonly name?: string; readonly schema: unknown; readonly strict?: boolean };

/**
 * A field of the client's request that the IR has no slot for. On a cross-protocol hop the
 * pipeline decides from `disposition` whether it is rejected (400 naming `path`) or dropped with
 * a warning; on the same-protocol path no IR is built, so nothing is ever lost there.
 */
export interface UnmappedField {
  readonly path: string;
  readonly value: unknown;
  readonly disposition: 'reject' | 'warn';
  readonly reason: string;
}

/** Reasoning levels, from off up; `protocols/shared/reasoning.ts` maps them to token budgets and back. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * How much the model should reason before it answers, as the client asked: an effort level, a
 * token budget, or both. `effort: 'none'` (or a budget of 0) turns reasoning off; neither member
 * set means "on, the model decides" (Anthropic adaptive, Gemini's dynamic budget).
 */
export interface ReasoningSetting {
  readonly effort?: ReasoningEffort;
  readonly budgetTokens?: number;
  /** The client wants to see the reasoning (Responses `reasoning.summary`, Gemini `includeThoughts`, visible thinking). */
  readonly summary?: 'auto' | 'concise' | 'detailed';
}

export interface ChatRequest {
  /** The model name the client sent (an operator name); routing replaces it per lane. */
  readonly model: string;
  readonly messages: readonly Message[];
  readonly stream: boolean;
  readonly tools?: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly maxTokens?: number;
  readonly stopSequences?: readonly string[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  /** Sampling seed for (best-effort) deterministic answers: OpenAI `seed`, Gemini `generationConfig.seed`, Cohere `seed`. */
  readonly seed?: number;
  readonly responseFormat?: ResponseFormat;
  readonly reasoning?: ReasoningSetting;
  /** End-user id for abuse tracking (OpenAI `user`/`safety_identifier`, Anthropic `metadata.user_id`). */
  readonly user?: string;
  /** Did the client ask to receive token usage on its stream (OpenAI `stream_options.include_usage`)? */
  readonly streamUsage?: boolean;
  /** The protocol the request was decoded from. */
  readonly source: ProtocolId;
  /** Client fields with no IR slot, with what to do when the target protocol cannot take them. */
  readonly unmapped: readonly UnmappedField[];
}
