import type { StreamDelta, StreamEvent } from '../../ir/index.ts';
import type { SseEvent } from '../../framing/sse-parser.ts';
import { BlockNumbering } from '../shared/block-numbering.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { decodeStreamError } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { reasoningBlock, SUMMARY_PART_SEPARATOR } from './reasoning-item.ts';
import { decodeUsage } from './usage.ts';
import type {
  ResponsesFunctionCallItem,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesReasoningItem,
  ResponsesResponse,
  ResponsesStreamPayload,
} from './wire.ts';

/** What the decoder knows about one output item, by its output_index. */
interface ItemState {
  readonly type: string;
  /** The IR block of a function call or reasoning item. */
  block?: number;
  /** IR blocks of a message's content parts, by content_index. */
  readonly parts: Map<number, number>;
  /** Arguments or reasoning text streamed so far: the done event repeats only what is missing. */
  streamed: string;
}

/**
 * Responses SSE (typed `event:` + `data:` events, no [DONE]) to IR stream events. A message's
 * content parts become text blocks, a function call or reasoning item one block each; the
 * reasoning item's encrypted_content is final only in output_item.done and goes out there as a
 * signature delta. The stream ends at response.completed or response.incomplete; an `error`
 * event or response.failed ends it with an IR error.
 */
export class ResponsesStreamDecoder extends SseStreamDecoder {
  private readonly items = new Map<number, ItemState>();
  private readonly blocks = new BlockNumbering();
  private started = false;
  private sawFunctionCall = false;
  private sawRefusal = false;

  constructor() {
    super('OpenAI Responses');
  }

  protected onEvent({ data }: SseEvent, out: StreamEvent[]): void {
    const payload = this.parsePayload<ResponsesStreamPayload>(data, out);
    if (payload === undefined) return;
    switch (payload.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        if (payload.response !== undefined) this.start(payload.response, out);
        return;
      case 'response.output_item.added':
        this.onItemAdded(payload.output_index ?? 0, payload.item, out);
        return;
      case 'response.output_item.done':
        this.onItemDone(payload.output_index ?? 0, payload.item, out);
        return;
      case 'response.content_part.added':
        if (payload.part?.type === 'output_text' || payload.part?.type === 'refusal') this.partBlock(payload, out);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (payload.type === 'response.refusal.delta') this.sawRefusal = true;
        if (payload.delta) this.delta(this.partBlock(payload, out), { type: 'text', text: payload.delta }, out);
        return;
      case 'response.content_part.done':
        this.onPartDone(payload, out);
        return;
      case 'response.function_call_arguments.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.onItemDelta(payload, out);
        return;
      case 'response.reasoning_summary_part.added': {
        const item = this.items.get(payload.output_index ?? 0);
        if ((payload.summary_index ?? 0) > 0 && item?.block !== undefined && item.streamed !== '') {
          item.streamed += SUMMARY_PART_SEPARATOR;
          this.delta(item.block, { type: 'reasoning', text: SUMMARY_PART_SEPARATOR }, out);
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.onEnd(payload, out);
        return;
      case 'response.failed':
        out.push({ type: 'error', error: decodeStreamError(payload.response?.error, 'the upstream response failed') });
        this.done = true;
        return;
      case 'error':
        out.push({ type: 'error', error: decodeStreamError(payload.error ?? payload, 'upstream stream error') });
        this.done = true;
        return;
      default:
        return; // *.done repeats of what was streamed, built-in tool progress, newer event types
    }
  }

  private start(response: ResponsesResponse, out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: 'message_start', id: response.id, model: response.model });
  }

  private delta(index: number, delta: StreamDelta, out: StreamEvent[]): void {
    out.push({ type: 'block_delta', index, delta });
  }

  private item(outputIndex: number, type: string): ItemState {
    let item = this.items.get(outputIndex);
    if (item === undefined) {
      item = { type, parts: new Map(), streamed: '' };
      this.items.set(outputIndex, item);
    }
    return item;
  }

  private onItemAdded(outputIndex: number, wire: ResponsesOutputItem | undefined, out: StreamEvent[]): void {
    if (wire === undefined) return;
    const item = this.item(outputIndex, wire.type);
    if (wire.type === 'function_call') {
      const call = wire as ResponsesFunctionCallItem;
      this.sawFunctionCall = true;
      item.block = this.blocks.start({ type: 'tool_call', id: call.call_id, name: call.name }, out);
      if (call.arguments) {
        item.streamed = call.arguments;
        this.delta(item.block, { type: 'tool_arguments', partialJson: call.arguments }, out);
      }
    } else if (wire.type === 'reasoning') {
      item.block = this.blocks.start({ type: 'reasoning', origin: 'responses', id: (wire as ResponsesReasoningItem).id }, out);
    }
  }

  /** The IR text block of a message part, opened on first sight (a server may skip content_part.added). */
  private partBlock(payload: ResponsesStreamPayload, out: StreamEvent[]): number {
    const item = this.item(payload.output_index ?? 0, 'message');
    const contentIndex = payload.content_index ?? 0;
    let index = item.parts.get(contentIndex);
    if (index === undefined) {
      index = this.blocks.start({ type: 'text' }, out);
      item.parts.set(contentIndex, index);
      if (payload.part?.type === 'refusal') this.sawRefusal = true;
      const text = payload.part?.text ?? payload.part?.refusal;
      if (payload.type === 'response.content_part.added' && text) this.delta(index, { type: 'text', text }, out);
    }
    return index;
  }

  private onPartDone(payload: ResponsesStreamPayload, out: StreamEvent[]): void {
    const part = payload.part;
    if (part?.type !== 'output_text' && part?.type !== 'refusal') return;
    const item = this.item(payload.output_index ?? 0, 'message');
    if (!item.parts.has(payload.content_index ?? 0)) {
      // Never announced: the done event is all there is of this part.
      const index = this.partBlock(payload, out);
      const text = part.text ?? part.refusal;
      if (text) this.delta(index, { type: 'text', text }, out);
    }
    this.blocks.stop(item.parts.get(payload.content_index ?? 0), out);
  }

  private onItemDelta(payload: ResponsesStreamPayload, out: StreamEvent[]): void {
    const item = this.items.get(payload.output_index ?? 0);
    if (item?.block === undefined || !payload.delta) return;
    item.streamed += payload.delta;
    this.delta(
      item.block,
      payload.type === 'response.function_call_arguments.delta'
        ? { type: 'tool_arguments', partialJson: payload.delta }
        : { type: 'reasoning', text: payload.delta },
      out,
    );
  }

  /** The finished item: whatever was not streamed is sent now, then its blocks close. */
  private onItemDone(outputIndex: number, wire: ResponsesOutputItem | undefined, out: StreamEvent[]): void {
    if (wire === undefined) return;
    if (!this.items.has(outputIndex)) this.onItemAdded(outputIndex, wire, out);
    const item = this.item(outputIndex, wire.type);
    if (wire.type === 'message') {
      (wire as ResponsesOutputMessage).content.forEach((part, contentIndex) => {
        this.onPartDone({ type: 'response.content_part.done', output_index: outputIndex, content_index: contentIndex, part }, out);
      });
      for (const index of item.parts.values()) this.blocks.stop(index, out);
    } else if (wire.type === 'function_call' && item.block !== undefined) {
      const args = (wire as ResponsesFunctionCallItem).arguments;
      if (item.streamed === '' && args) this.delta(item.block, { type: 'tool_arguments', partialJson: args }, out);
      this.blocks.stop(item.block, out);
    } else if (wire.type === 'reasoning' && item.block !== undefined) {
      const reasoning = wire as ResponsesReasoningItem;
      const text = reasoningBlock(reasoning).text;
      if (item.streamed === '' && text !== '') this.delta(item.block, { type: 'reasoning', text }, out);
      if (typeof reasoning.encrypted_content === 'string' && reasoning.encrypted_content !== '') {
        this.delta(item.block, { type: 'signature', signature: reasoning.encrypted_content }, out);
      }
      this.blocks.stop(item.block, out);
    }
  }

  private onEnd(payload: ResponsesStreamPayload, out: StreamEvent[]): void {
    const response = payload.response;
    if (response !== undefined) this.start(response, out);
    this.blocks.stopAll(out);
    const output = response?.output ?? [];
    const finish = decodeFinishReason({
      status: response?.status ?? (payload.type === 'response.completed' ? 'completed' : 'incomplete'),
      incompleteReason: response?.incomplete_details?.reason,
      hasFunctionCall: this.sawFunctionCall || output.some((item) => item.type === 'function_call'),
      hasRefusal:
        this.sawRefusal || output.some((item) => item.type === 'message' && (item as ResponsesOutputMessage).content.some((p) => p.type === 'refusal')),
    });
    out.push({ type: 'finish', finish });
    if (response?.usage !== undefined && response.usage !== null) out.push({ type: 'usage', usage: decodeUsage(response.usage) });
    out.push({ type: 'message_stop' });
    this.done = true;
  }
}
