import type { StreamEvent } from '../../ir/index.ts';
import type { SseEvent } from '../../framing/sse-parser.ts';
import { BlockNumbering } from '../shared/block-numbering.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { decodeStreamError } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { CohereStreamEvent } from './wire.ts';

/**
 * v2 Chat SSE (`event:` + `data:`) to IR stream events. message-end is the terminator; a
 * `data: [DONE]` the API may send after it is ignored. Content parts and tool calls are numbered
 * separately on the wire; the IR numbers all blocks in the order they start. The tool plan has no
 * start or end event: its block opens with the first plan delta and closes when anything else begins.
 */
export class CohereStreamDecoder extends SseStreamDecoder {
  private readonly contentIndices = new Map<number, number>();
  private readonly toolIndices = new Map<number, number>();
  /** IR indices of thinking parts: their deltas are reasoning, not text. */
  private readonly thinking = new Set<number>();
  private readonly blocks = new BlockNumbering();
  private planIndex: number | undefined;

  constructor() {
    super('Cohere');
  }

  protected onEvent({ event, data }: SseEvent, out: StreamEvent[]): void {
    // The SDK stops reading at [DONE]; the gateway stops at message-end, so a [DONE] without one
    // still ends the stream as truncated.
    if (data === '[DONE]') return;
    const payload = this.parsePayload<CohereStreamEvent | null>(data, out);
    if (payload === undefined || payload === null || typeof payload !== 'object') return; // JSON, but no event: nothing to translate
    const message = payload.delta?.message;
    switch (payload.type ?? event) {
      case 'message-start':
        out.push({ type: 'message_start', id: payload.id ?? '', model: '' });
        return;
      case 'content-start': {
        this.closePlan(out);
        const content = message?.content;
        const isThinking = content?.type === 'thinking';
        const index = this.blocks.start(isThinking ? { type: 'reasoning', origin: 'cohere' } : { type: 'text' }, out);
        if (isThinking) this.thinking.add(index);
        this.contentIndices.set(payload.index ?? 0, index);
        this.pushContent(index, content, out);
        return;
      }
      case 'content-delta': {
        const index = this.contentIndices.get(payload.index ?? 0);
        if (index !== undefined) this.pushContent(index, message?.content, out);
        return;
      }
      case 'content-end':
        this.blocks.stop(this.contentIndices.get(payload.index ?? 0), out);
        return;
      case 'tool-plan-delta': {
        const text = message?.tool_plan;
        if (text === undefined || text === '') return;
        this.planIndex ??= this.blocks.start({ type: 'text' }, out);
        out.push({ type: 'block_delta', index: this.planIndex, delta: { type: 'text', text } });
        return;
      }
      case 'tool-call-start': {
        this.closePlan(out);
        const call = message?.tool_calls;
        const index = this.blocks.start({ type: 'tool_call', id: call?.id ?? '', name: call?.function?.name ?? '' }, out);
        this.toolIndices.set(payload.index ?? 0, index);
        this.pushArguments(index, call?.function?.arguments, out);
        return;
      }
      case 'tool-call-delta': {
        const index = this.toolIndices.get(payload.index ?? 0);
        if (index !== undefined) this.pushArguments(index, message?.tool_calls?.function?.arguments, out);
        return;
      }
      case 'tool-call-end':
        this.blocks.stop(this.toolIndices.get(payload.index ?? 0), out);
        return;
      case 'message-end':
        this.onMessageEnd(payload.delta ?? {}, out);
        return;
      default:
        return; // citations, debug and event types newer than this codec carry nothing to translate
    }
  }

  /**
   * The end of the message, or of a failed generation: ERROR and TIMEOUT (with or without an
   * `error` text) end the IR stream with an error event, never with a clean-looking finish.
   */
  private onMessageEnd(delta: NonNullable<CohereStreamEvent['delta']>, out: StreamEvent[]): void {
    const reason = delta.finish_reason;
    const failed = (typeof delta.error === 'string' && delta.error !== '') || reason === 'ERROR' || reason === 'TIMEOUT';
    if (!failed) {
      // A clean end closes what the upstream left open; an error may cut a block anywhere, as in every protocol.
      this.closePlan(out);
      this.blocks.stopAll(out);
      out.push({ type: 'finish', finish: decodeFinishReason(reason) });
    }
    if (delta.usage !== undefined) out.push({ type: 'usage', usage: decodeUsage(delta.usage) });
    out.push(failed ? { type: 'error', error: decodeStreamError(reason, delta.error || undefined) } : { type: 'message_stop' });
    this.done = true;
  }

  private closePlan(out: StreamEvent[]): void {
    this.blocks.stop(this.planIndex, out);
    this.planIndex = undefined;
  }

  private pushContent(index: number, content: { text?: string; thinking?: string } | undefined, out: StreamEvent[]): void {
    if (this.thinking.has(index)) {
      if (content?.thinking) out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text: content.thinking } });
    } else if (content?.text) out.push({ type: 'block_delta', index, delta: { type: 'text', text: content.text } });
  }

  private pushArguments(index: number, args: string | undefined, out: StreamEvent[]): void {
    if (args) out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: args } });
  }
}
