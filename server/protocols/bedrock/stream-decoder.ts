import { gatewayError, type StreamBlockStart, type StreamEvent } from '../../ir/index.ts';
import { decodeFrame, type EventStreamFrame } from '../../framing/eventstream-frame.ts';
import { EventStreamSplitter } from '../../framing/eventstream-splitter.ts';
import type { StreamDecoder } from '../codec.ts';
import { streamEndedEarly } from '../shared/stream-ended-early.ts';
import { decodeStreamException } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { BedrockErrorBody, BedrockEventPayload } from './wire.ts';

type BedrockContentBlockStart = BedrockEventPayload<'contentBlockStart'>;
type BedrockContentBlockDelta = BedrockEventPayload<'contentBlockDelta'>;
type BedrockMessageStop = BedrockEventPayload<'messageStop'>;
type BedrockMetadata = BedrockEventPayload<'metadata'>;

type BlockKind = StreamBlockStart['type'];

const UTF8 = new TextDecoder('utf-8');

/**
 * ConverseStream (binary event-stream frames) to IR stream events. Bedrock opens only tool-use
 * blocks explicitly; a text or reasoning block opens with its first delta. The stream is complete
 * at messageStop plus metadata (usage), in either order: some upstreams send metadata first. A
 * stream cut after messageStop but before metadata still ends cleanly, since the answer is whole;
 * only its usage is missing, which the gateway then estimates.
 */
export class BedrockStreamDecoder implements StreamDecoder {
  private readonly splitter = new EventStreamSplitter();
  private done = false;
  private started = false;
  private stopped = false;
  private sawMetadata = false;
  private nextIndex = 0;
  /** Bedrock contentBlockIndex -> the IR block it currently feeds. */
  private readonly open = new Map<number, { readonly index: number; readonly kind: BlockKind }>();

  push(chunk: Uint8Array): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.done) return out;
    let frames: Uint8Array[];
    try {
      frames = this.splitter.push(chunk);
    } catch {
      this.fail(out);
      return out;
    }
    for (const bytes of frames) {
      if (this.done) break;
      this.onFrame(bytes, out);
    }
    return out;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    this.done = true;
    return [this.stopped ? { type: 'message_stop' } : streamEndedEarly('Bedrock')];
  }

  private onFrame(bytes: Uint8Array, out: StreamEvent[]): void {
    let frame: EventStreamFrame;
    let payload: unknown;
    try {
      frame = decodeFrame(bytes);
      payload = JSON.parse(UTF8.decode(frame.payload)) as unknown;
    } catch {
      this.fail(out);
      return;
    }
    const { headers } = frame;
    switch (headers[':message-type']) {
      case 'event':
        this.onEvent(headers[':event-type'] ?? '', payload, out);
        return;
      case 'exception':
        out.push({ type: 'error', error: decodeStreamException(headers[':exception-type'] ?? 'unknownException', payload as BedrockErrorBody) });
        this.done = true;
        return;
      case 'error':
        out.push({
          type: 'error',
          error: gatewayError('server', headers[':error-message'] ?? 'Bedrock stream error', { code: headers[':error-code'] ?? null }),
        });
        this.done = true;
        return;
      default:
        return; // message types newer than this codec carry nothing to translate
    }
  }

  private onEvent(type: string, payload: unknown, out: StreamEvent[]): void {
    this.start(out);
    switch (type) {
      case 'contentBlockStart': {
        const { contentBlockIndex, start } = payload as BedrockContentBlockStart;
        if (start.toolUse !== undefined) this.block(contentBlockIndex, { type: 'tool_call', id: start.toolUse.toolUseId, name: start.toolUse.name }, out);
        return;
      }
      case 'contentBlockDelta':
        this.onDelta(payload as BedrockContentBlockDelta, out);
        return;
      case 'contentBlockStop':
        this.close((payload as { contentBlockIndex: number }).contentBlockIndex, out);
        return;
      case 'messageStop': {
        for (const wireIndex of [...this.open.keys()]) this.close(wireIndex, out);
        const stop = payload as BedrockMessageStop;
        out.push({ type: 'finish', finish: decodeFinishReason(stop.stopReason, stop.additionalModelResponseFields) });
        this.stopped = true;
        this.completeIfDone(out);
        return;
      }
      case 'metadata':
        this.onMetadata(payload as BedrockMetadata, out);
        return;
      default:
        return; // messageStart (already handled by start) and event types newer than this codec
    }
  }

  private onDelta({ contentBlockIndex: at, delta }: BedrockContentBlockDelta, out: StreamEvent[]): void {
    if (typeof delta.text === 'string') {
      const index = this.block(at, { type: 'text' }, out);
      if (delta.text !== '') out.push({ type: 'block_delta', index, delta: { type: 'text', text: delta.text } });
    } else if (delta.toolUse !== undefined) {
      // Bedrock always opens a tool block first; a missing start would leave the call nameless.
      const index = this.block(at, { type: 'tool_call', id: '', name: '' }, out);
      if (delta.toolUse.input !== '') out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: delta.toolUse.input } });
    } else if (delta.reasoningContent !== undefined) {
      const { text, signature, redactedContent } = delta.reasoningContent;
      if (redactedContent !== undefined) {
        // The IR carries encrypted reasoning whole in its block start: each piece is its own block.
        this.close(at, out);
        this.block(at, { type: 'redacted_reasoning', data: redactedContent, origin: 'bedrock' }, out);
        return;
      }
      const index = this.block(at, { type: 'reasoning', origin: 'bedrock' }, out);
      if (typeof text === 'string' && text !== '') out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text } });
      if (typeof signature === 'string' && signature !== '') out.push({ type: 'block_delta', index, delta: { type: 'signature', signature } });
    }
    // citation, image and toolResult deltas have no IR form.
  }

  private onMetadata(metadata: BedrockMetadata, out: StreamEvent[]): void {
    if (metadata.usage !== undefined) out.push({ type: 'usage', usage: decodeUsage(metadata.usage) });
    this.sawMetadata = true;
    this.completeIfDone(out);
  }

  private completeIfDone(out: StreamEvent[]): void {
    if (!this.stopped || !this.sawMetadata) return;
    out.push({ type: 'message_stop' });
    this.done = true;
  }

  /** Bedrock names neither the response nor the model in a stream: both are ''. */
  private start(out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: 'message_start', id: '', model: '' });
  }

  /** The IR index of the block at `wireIndex`, opening it (or replacing a block of another kind). */
  private block(wireIndex: number, start: StreamBlockStart, out: StreamEvent[]): number {
    const current = this.open.get(wireIndex);
    if (current !== undefined && current.kind === start.type && start.type !== 'redacted_reasoning') return current.index;
    if (current !== undefined) this.close(wireIndex, out);
    const index = this.nextIndex++;
    this.open.set(wireIndex, { index, kind: start.type });
    out.push({ type: 'block_start', index, block: start });
    return index;
  }

  private close(wireIndex: number, out: StreamEvent[]): void {
    const current = this.open.get(wireIndex);
    if (current === undefined) return;
    this.open.delete(wireIndex);
    out.push({ type: 'block_stop', index: current.index });
  }

  private fail(out: StreamEvent[]): void {
    out.push({
      type: 'error',
      error: gatewayError('server', 'the Bedrock upstream sent a malformed event-stream frame', { status: 502, code: 'bad_upstream_stream' }),
    });
    this.done = true;
  }
}
