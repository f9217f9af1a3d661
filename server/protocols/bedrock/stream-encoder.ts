import { ZERO_USAGE, type StreamBlockStart, type StreamEvent, type Usage } from '../../ir/index.ts';
import { encodeFrame } from '../../framing/eventstream-frame.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { streamWarnings, warningsText } from '../shared/stream-warnings.ts';
import { isForeignReasoning } from '../shared/foreign-reasoning.ts';
import { dropped } from '../shared/warnings.ts';
import { streamExceptionType } from './errors.ts';
import { encodeFinishReason, stopSequenceFields } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';
import { SiblingThinkingStream } from '../shared/thinking-carrier.ts';

const EMPTY = new Uint8Array(0);

const event = (type: string, payload: Record<string, unknown>, extraHeaders?: Record<string, string>) =>
  encodeFrame({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event', ...extraHeaders }, JSON.stringify(payload));

/**
 * Event-stream frames have no comments, so a stream's warnings ride as a header of the closing
 * metadata frame: the SDKs read only the `:`-prefixed headers of an event and ignore the others.
 */
const WARNINGS_FRAME_HEADER = 'x-gateway-warnings';

/**
 * IR stream events to ConverseStream event-stream frames. Text and reasoning blocks have no start
 * event on Bedrock (their first delta opens them); usage is held for the closing metadata event,
 * which Bedrock sends after messageStop. The model is not timed alone, so latencyMs is 0.
 */
export class BedrockStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private started = false;
  private stopped = false;
  private usage: Usage = ZERO_USAGE;
  private readonly client: ClientContext;

  constructor(client: ClientContext = { streamUsage: false }) {
    this.client = client;
  }
  /** IR block index -> Bedrock contentBlockIndex */
  private readonly indices = new Map<number, number>();
  private readonly kinds = new Map<number, StreamBlockStart['type']>();
  /** IR blocks with no Bedrock form in this stream. */
  private readonly skipped = new Set<number>();
  /** Anthropic-issued thinking, sent with its carrier (shared/thinking-carrier.ts). */
  private readonly sibling = new SiblingThinkingStream('bedrock');

  encode(e: StreamEvent): Uint8Array {
    switch (e.type) {
      case 'message_start':
        if (e.usage !== undefined) this.usage = e.usage;
        return this.start();
      case 'block_start': {
        const block = e.block;
        const sibling = this.sibling.start(e.index, block);
        if (isForeignReasoning(block, 'bedrock') && !sibling) {
          // Another protocol's reasoning: a client would replay it as Bedrock's own.
          this.skipped.add(e.index);
          this.warnings.push(dropped(`content[${e.index}]`, `reasoning from the ${block.origin} protocol`));
          return this.start();
        }
        const contentBlockIndex = this.indices.size;
        this.indices.set(e.index, contentBlockIndex);
        this.kinds.set(e.index, block.type);
        if (block.type === 'tool_call') {
          return this.withStart(
            event('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: idWithSignature(block.id, block.signature), name: block.name } } }),
          );
        }
        if (block.type === 'redacted_reasoning') {
          const data = sibling ? this.sibling.redacted(block.data) : block.data;
          return this.withStart(event('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { redactedContent: data } } }));
        }
        return this.start();
      }
      case 'block_delta': {
        const d = e.delta;
        if (this.skipped.has(e.index)) return EMPTY;
        // Signatures belong to reasoning; on any other block they are another protocol's (Gemini signs text).
        if (d.type === 'signature' && this.kinds.get(e.index) !== 'reasoning') return EMPTY;
        if (this.sibling.hold(e.index, d)) return EMPTY;
        const delta =
          d.type === 'text'
            ? { text: d.text }
            : d.type === 'tool_arguments'
              ? { toolUse: { input: d.partialJson } }
              : d.type === 'reasoning'
                ? { reasoningContent: { text: d.text } }
                : { reasoningContent: { signature: d.signature } };
        return this.withStart(event('contentBlockDelta', { contentBlockIndex: this.wireIndex(e.index), delta }));
      }
      case 'block_stop': {
        if (this.skipped.has(e.index)) return EMPTY;
        const contentBlockIndex = this.wireIndex(e.index);
        const carrier = this.sibling.stop(e.index);
        const stop = event('contentBlockStop', { contentBlockIndex });
        if (carrier === undefined) return stop;
        return Buffer.concat([event('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature: carrier } } }), stop]);
      }
      case 'finish': {
        this.stopped = true;
        const fields = stopSequenceFields(e.finish, true);
        return this.withStart(
          event('messageStop', { stopReason: encodeFinishReason(e.finish), ...(fields !== undefined && { additionalModelResponseFields: fields }) }),
        );
      }
      case 'usage':
        this.usage = e.usage;
        return EMPTY;
      case 'error':
        return encodeFrame(
          { ':exception-type': streamExceptionType(e.error), ':content-type': 'application/json', ':message-type': 'exception' },
          JSON.stringify({ message: e.error.message }),
        );
      case 'message_stop': {
        const head = join(this.start(), this.stopped ? EMPTY : event('messageStop', { stopReason: 'end_turn' }));
        const warnings = streamWarnings(this.client, this.warnings);
        const note = warnings.length === 0 ? undefined : { [WARNINGS_FRAME_HEADER]: warningsText(warnings) };
        return join(head, event('metadata', { usage: encodeUsage(this.usage), metrics: { latencyMs: 0 } }, note));
      }
    }
  }

  private wireIndex(index: number): number {
    return this.indices.get(index) ?? index;
  }

  /** `frame`, after messageStart when it is the stream's first: no batch array on the per-delta path. */
  private withStart(frame: Uint8Array): Uint8Array {
    return this.started ? frame : Buffer.concat([this.start(), frame]);
  }

  private start(): Uint8Array {
    if (this.started) return EMPTY;
    this.started = true;
    return event('messageStart', { role: 'assistant' });
  }
}

function join(...parts: Uint8Array[]): Uint8Array {
  const nonEmpty = parts.filter((p) => p.length > 0);
  return nonEmpty.length === 1 ? (nonEmpty[0] as Uint8Array) : Buffer.concat(nonEmpty);
}
