// What the OpenAI Responses schemas (spec/protocols/responses/) do not say as TypeScript. The
// request types are generated from the request schema (generated/protocols/responses/request.ts)
// and the codec imports them from there. What stays here, and why:
// - the freeform (custom) tool call items a client replays as input: the request schema lets them
//   pass unchecked (an input item of an unnamed type), yet the codec reads their members;
// - the answer and stream shapes: the response and stream-event schemas do not name the custom
//   tool call output item the gateway writes, and the stream decoder reads an unvalidated
//   upstream's events through one flattened view. Their usage and error objects are the
//   generated ones (generated/protocols/responses/response.ts).
import type { ContentPart } from '../../../generated/protocols/responses/request.ts';
import type { ResponseError, Usage } from '../../../generated/protocols/responses/response.ts';

/** A replayed freeform call (`custom_tool_call`), which the request schema does not check. */
export interface ResponsesCustomToolCallInput {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
}
/** A freeform call's result (`custom_tool_call_output`), which the request schema does not check. */
export interface ResponsesCustomToolCallOutputInput {
  type: 'custom_tool_call_output';
  call_id?: string | null;
  output: string | ContentPart[];
}

export interface ResponsesOutputTextPart {
  type: 'output_text';
  text: string;
  annotations?: unknown[];
  logprobs?: unknown[];
}
export interface ResponsesRefusalPart {
  type: 'refusal';
  refusal: string;
}

export type ResponsesContentPart =
  | { type: 'input_text'; text: string }
  | ResponsesOutputTextPart
  | ResponsesRefusalPart
  | { type: string; [key: string]: unknown };

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

export interface ResponsesSummaryText {
  type: 'summary_text';
  text: string;
}
export interface ResponsesReasoningText {
  type: 'reasoning_text';
  text: string;
}

export interface ResponsesReasoningItem {
  type: 'reasoning';
  id?: string;
  summary: ResponsesSummaryText[];
  content?: ResponsesReasoningText[];
  encrypted_content?: string | null;
  status?: string;
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

export type ResponsesOutputItem = ResponsesOutputMessage | ResponsesOutputFunctionCall | ResponsesReasoningItem | { type: string; [key: string]: unknown };

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status?: string;
  error?: ResponseError | null;
  incomplete_details?: { reason?: string } | null;
  model: string;
  output: ResponsesOutputItem[];
  usage?: Usage | null;
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
