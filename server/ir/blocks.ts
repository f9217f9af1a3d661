// Content blocks: the unit every protocol's messages are made of. They belong to no single protocol;
// each codec maps its own part/block shapes onto these. Opaque values (ids, signatures) travel untouched.
import type { ProtocolId } from './protocol-id.ts';

/**
 * An opaque value a provider attached to a part (Gemini's `thoughtSignature`): it is only
 * meaningful to the protocol that issued it, so encoders replay it there and nowhere else.
 */
export interface OpaqueSignature {
  readonly origin: ProtocolId;
  readonly value: string;
}

export type ImageSource = { readonly kind: 'base64'; readonly mediaType: string; readonly data: string } | { readonly kind: 'url'; readonly url: string };

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  /** Provider cache hint (Anthropic `cache_control`), kept verbatim for protocols that have one. */
  readonly cacheControl?: unknown;
  readonly signature?: OpaqueSignature;
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
  readonly signature?: OpaqueSignature;
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
  /** Provider-bound proof of the reasoning (Anthropic signature); replayed only to `origin`. */
  readonly signature?: string;
  /** Encrypted reasoning instead of or beside text (Anthropic redacted_thinking, Responses encrypted_content). */
  readonly redacted?: string;
  /** The protocol that issued `signature` and `redacted`: no other protocol can verify them. */
  readonly origin?: ProtocolId;
  /** The provider's id for the reasoning item (Responses), replayed with it. */
  readonly id?: string;
}

export type ContentBlock = TextBlock | ImageBlock | ToolCallBlock | ToolResultBlock | ReasoningBlock;
