import type { ContentBlock, Message } from '../ir/index.ts';

/**
 * One message part in the shape of the OpenTelemetry GenAI conventions' `gen_ai.input.messages`
 * and `gen_ai.output.messages` (text, tool calls and their results; images are named, not copied).
 */
export type ContentPart =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'reasoning'; readonly content: string }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'tool_call_response'; readonly id: string; readonly response: string }
  | { readonly type: 'image' };

export interface ContentMessage {
  readonly role: string;
  readonly parts: readonly ContentPart[];
}

/**
 * A request's prompt and completion, for the one observer that may export them (traces, with
 * `otlp.capture_content: true`). Never part of the RequestRecord: the record goes to metrics,
 * logs and hooks, none of which may carry text. Plain data, like the record.
 */
export interface RequestContent {
  readonly input: readonly ContentMessage[];
  readonly output: readonly ContentMessage[];
}

export function contentMessages(messages: readonly Message[]): ContentMessage[] {
  return messages.map((m) => ({ role: m.role, parts: m.content.map(contentPart) }));
}

export function contentPart(block: ContentBlock): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: block.text };
    case 'reasoning':
      return { type: 'reasoning', content: block.text };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.arguments };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.callId, response: block.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('') };
    case 'image':
      return { type: 'image' };
  }
}
