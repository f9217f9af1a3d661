import type { Finish, StreamBlockStart, StreamEvent, Usage } from '../../ir/index.ts';
import { ZERO_USAGE } from '../../ir/index.ts';
import { sseEvent } from '../../framing/sse-format.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { sseWarningsComment } from '../shared/stream-warnings.ts';
import { errorBody } from './errors.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { isForeignReasoning } from '../shared/foreign-reasoning.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeUsage } from './usage.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';
import { SiblingThinkingStream } from '../shared/thinking-carrier.ts';

const event = (type: string, payload: Record<string, unknown>) => sseEvent(JSON.stringify({ type, ...payload }), type);

/** A text delta, the most common event: the bytes `event('content_block_delta', ...)` makes, with only the text stringified. */
export const textDeltaEvent = (index: number, text: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;

/**
 * IR stream events to Messages SSE. Finish and usage are held until the end because Anthropic puts
 * both in one message_delta, while OpenAI sends usage in a later chunk than its finish reason.
 */
export class AnthropicStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private started = false;
  private id = 'msg_gateway';
  private model = '';
  private finish: Finish = { reason: 'stop', raw: null };
  private usage: Usage = ZERO_USAGE;

  private readonly client: ClientContext;

  constructor(client: ClientContext = { streamUsage: false }) {
    this.client = client;
  }
  /** IR block index -> Anthropic content block index */
  private readonly indices = new Map<number, number>();
  private readonly kinds = new Map<number, StreamBlockStart['type']>();
  /** IR blocks with no Anthropic form in this stream. */
  private readonly skipped = new Set<number>();
  /** Bedrock-issued thinking, sent with its carrier (shared/thinking-carrier.ts). */
  private readonly sibling = new SiblingThinkingStream('anthropic');

  encode(e: StreamEvent): string {
    switch (e.type) {
      case 'message_start':
        this.id = e.id || this.id;
        this.model = e.model;
        if (e.usage !== undefined) this.usage = e.usage;
        return this.start();
      case 'block_start': {
        const block = e.block;
        const sibling = this.sibling.start(e.index, block);
        if (isForeignReasoning(block, 'anthropic') && !sibling) {
          // Another protocol's reasoning: Anthropic clients would replay it as a thinking block
          // that no Anthropic upstream can verify, so it is reported instead of forwarded.
          this.skipped.add(e.index);
          this.warnings.push(dropped(`content[${e.index}]`, `reasoning from the ${block.origin} protocol`));
          return this.start();
        }
        const index = this.indices.size;
        this.indices.set(e.index, index);
        this.kinds.set(e.index, block.type);
        const contentBlock =
          block.type === 'text'
            ? { type: 'text', text: '' }
            : block.type === 'tool_call'
              ? { type: 'tool_use', id: idWithSignature(block.id, block.signature), name: block.name, input: {} }
              : block.type === 'reasoning'
                ? { type: 'thinking', thinking: '', signature: '' }
                : { type: 'redacted_thinking', data: sibling ? this.sibling.redacted(block.data) : block.data };
        return this.start() + event('content_block_start', { index, content_block: contentBlock });
      }
      case 'block_delta': {
        const d = e.delta;
        if (this.skipped.has(e.index)) return '';
        // A signature belongs to a thinking block; on any other block it is another protocol's
        // opaque value (Gemini signs text parts) and has no Anthropic form.
        if (d.type === 'signature' && this.kinds.get(e.index) !== 'reasoning') return '';
        if (this.sibling.hold(e.index, d)) return '';
        const index = this.indices.get(e.index) ?? 0;
        if (d.type === 'text') return this.start() + textDeltaEvent(index, d.text);
        const delta =
          d.type === 'tool_arguments'
            ? { type: 'input_json_delta', partial_json: d.partialJson }
            : d.type === 'reasoning'
              ? { type: 'thinking_delta', thinking: d.text }
              : { type: 'signature_delta', signature: d.signature };
        return this.start() + event('content_block_delta', { index, delta });
      }
      case 'block_stop': {
        if (this.skipped.has(e.index)) return '';
        const index = this.indices.get(e.index) ?? 0;
        const carrier = this.sibling.stop(e.index);
        const signature = carrier === undefined ? '' : event('content_block_delta', { index, delta: { type: 'signature_delta', signature: carrier } });
        return signature + event('content_block_stop', { index });
      }
      case 'finish':
        this.finish = e.finish;
        return this.start();
      case 'usage':
        this.usage = e.usage;
        return '';
      case 'error':
        return sseEvent(JSON.stringify(errorBody(e.error)), 'error');
      case 'message_stop':
        return (
          this.start() +
          event('message_delta', { delta: encodeFinishReason(this.finish), usage: encodeUsage(this.usage) }) +
          sseWarningsComment(this.client, this.warnings) +
          event('message_stop', {})
        );
    }
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const usage = encodeUsage(this.usage);
    return event('message_start', {
      message: {
        id: this.id,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
  }
}
