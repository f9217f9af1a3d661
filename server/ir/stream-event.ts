import type { OpaqueSignature } from './blocks.ts';
import type { ProtocolId } from './protocol-id.ts';
import type { Finish, Usage } from './response.ts';
import type { GatewayError } from './error.ts';

/** What kind of block a stream opens; deltas then fill it. */
export type StreamBlockStart =
  | { readonly type: 'text' }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly signature?: OpaqueSignature }
  | { readonly type: 'reasoning'; readonly origin?: ProtocolId; readonly id?: string }
  | { readonly type: 'redacted_reasoning'; readonly data: string; readonly origin?: ProtocolId };

export type StreamDelta =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_arguments'; readonly partialJson: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'signature'; readonly signature: string };

/**
 * One event of a streamed response, protocol-neutral. Block indices are the IR's own (0, 1, ...
 * in the order blocks start). A well-formed stream is: message_start, blocks (start, deltas, stop),
 * then finish and usage in either order, then message_stop. `error` may come at any point.
 */
export type StreamEvent =
  | { readonly type: 'message_start'; readonly id: string; readonly model: string; readonly usage?: Usage }
  | { readonly type: 'block_start'; readonly index: number; readonly block: StreamBlockStart }
  | { readonly type: 'block_delta'; readonly index: number; readonly delta: StreamDelta }
  | { readonly type: 'block_stop'; readonly index: number }
  | { readonly type: 'finish'; readonly finish: Finish }
  /** Usage so far: each usage event replaces the previous one (values are cumulative). */
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'error'; readonly error: GatewayError }
  | { readonly type: 'message_stop' };

/**
 * Events that carry what the client asked for; before the first of these, nothing is committed.
 * An empty text or reasoning block opening (Responses' `output_item.added`, Anthropic's
 * `content_block_start`) is not yet content: an upstream that fails right after one can still be
 * swapped for another lane.
 */
export function isContentEvent(event: StreamEvent): boolean {
  if (event.type === 'block_start') return event.block.type !== 'text' && event.block.type !== 'reasoning';
  return event.type === 'block_delta' || event.type === 'finish';
}
