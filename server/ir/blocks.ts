// Content blocks: the unit every protocol's messages are made of. They belong to no single protocol;
// each codec maps its own part/block shapes onto these. Opaque values (ids, signatures) travel untouched.

export type ImageSource =
  | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string }
  | { readonly kind: 'url'; readonly url: string };

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  /** Provider cache hint (Anthropic `cache_control`), kept verbatim for protocols that have one. */
  readonly cacheControl?: unknown;
}

export interface ImageBlock {
  readonly type: 'image';
  readonly source: ImageSource;
  /** OpenAI's `detail` (auto|low|high); only OpenAI protocols can express it. */
  readonly detail?: string;
}

export interface ToolCallBlock {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** Arguments exactly as the model produced them: a JSON text, never re-serialised. */
  readonly arguments: string;
}

export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly callId: string;
  readonly content: readonly (TextBlock | ImageBlock)[];
  readonly isError: boolean;
}

export interface ReasoningBlock {
  readonly type: 'reasoning';
  readonly text: string;
  /** Provider-bound proof of the reasoning (Anthropic signature); replayed only to the same protocol. */
  readonly signature?: string;
  /** Encrypted reasoning the provider returned instead of text (Anthropic redacted_thinking). */
  readonly redacted?: string;
}

export type ContentBlock = TextBlock | ImageBlock | ToolCallBlock | ToolResultBlock | ReasoningBlock;
