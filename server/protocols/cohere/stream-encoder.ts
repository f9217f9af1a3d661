import { ZERO_USAGE, type Finish, type StreamEvent, type Usage } from '../../ir/index.ts';
import { sseEvent } from '../../framing/sse-format.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { sseWarningsComment } from '../shared/stream-warnings.ts';
import { dropped } from '../shared/warnings.ts';
import { streamErrorReason } from './errors.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage, usageWarnings } from './usage.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/**
 * The SDK ends its stream at any data line that contains `[DONE]`, even inside a string, so the
 * bracket is written as a JSON escape there: the same text for every JSON reader.
 */
const event = (type: string, payload: Record<string, unknown>) => sseEvent(JSON.stringify({ type, ...payload }).replaceAll('[DONE]', '\\u005bDONE]'), type);

/** Where an IR block went on the wire: Cohere numbers content parts and tool calls separately. */
type Placement = { readonly kind: 'content' | 'tool'; readonly index: number } | { readonly kind: 'skipped' };

/**
 * IR stream events to v2 Chat SSE. Finish and usage are held until the end because message-end
 * carries both. No `[DONE]` follows: message-end is the terminator and the SDK needs nothing more.
 * Text is always sent as content: a stream cannot know yet whether tool calls will follow, so the
 * tool plan of a translated stream arrives as a content part (the IR is the same either way).
 */
export class CohereStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private started = false;
  private id = '';
  private finish: Finish = { reason: 'stop', raw: null };
  private usage: Usage | undefined;

  private readonly client: ClientContext;

  constructor(client: ClientContext = { streamUsage: false }) {
    this.client = client;
  }
  private readonly placements = new Map<number, Placement>();
  private nextContent = 0;
  private nextTool = 0;

  encode(e: StreamEvent): string {
    switch (e.type) {
      case 'message_start':
        this.id = e.id;
        return this.start();
      case 'block_start':
        return this.start() + this.blockStart(e.index, e.block);
      case 'block_delta':
        return this.start() + this.blockDelta(e.index, e.delta);
      case 'block_stop': {
        const placement = this.placements.get(e.index);
        if (placement === undefined || placement.kind === 'skipped') return '';
        return event(placement.kind === 'tool' ? 'tool-call-end' : 'content-end', { index: placement.index });
      }
      case 'finish':
        this.finish = e.finish;
        return this.start();
      case 'usage':
        this.usage = e.usage;
        return '';
      case 'error':
        return (
          this.start() +
          event('message-end', {
            delta: { finish_reason: streamErrorReason(e.error), error: e.error.message, ...(this.usage !== undefined && { usage: encodeUsage(this.usage) }) },
          })
        );
      case 'message_stop': {
        const usage = this.usage ?? ZERO_USAGE;
        this.warnings.push(...usageWarnings(usage));
        return (
          this.start() +
          sseWarningsComment(this.client, this.warnings) +
          event('message-end', { delta: { finish_reason: encodeFinishReason(this.finish), usage: encodeUsage(usage) } })
        );
      }
    }
  }

  private blockStart(irIndex: number, block: Extract<StreamEvent, { type: 'block_start' }>['block']): string {
    if (block.type === 'redacted_reasoning') {
      this.placements.set(irIndex, { kind: 'skipped' });
      this.warnings.push(dropped(`content[${irIndex}]`, 'encrypted reasoning'));
      return '';
    }
    if (block.type === 'tool_call') {
      const index = this.nextTool++;
      this.placements.set(irIndex, { kind: 'tool', index });
      return event('tool-call-start', {
        index,
        delta: { message: { tool_calls: { id: idWithSignature(block.id, block.signature), type: 'function', function: { name: block.name, arguments: '' } } } },
      });
    }
    const index = this.nextContent++;
    this.placements.set(irIndex, { kind: 'content', index });
    const content = block.type === 'reasoning' ? { type: 'thinking', thinking: '' } : { type: 'text', text: '' };
    return event('content-start', { index, delta: { message: { content } } });
  }

  private blockDelta(irIndex: number, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): string {
    const placement = this.placements.get(irIndex);
    if (placement === undefined || placement.kind === 'skipped') return '';
    const { index } = placement;
    switch (delta.type) {
      case 'text':
        return delta.text === '' ? '' : event('content-delta', { index, delta: { message: { content: { text: delta.text } } } });
      case 'reasoning':
        return delta.text === '' ? '' : event('content-delta', { index, delta: { message: { content: { thinking: delta.text } } } });
      case 'tool_arguments':
        return delta.partialJson === ''
          ? ''
          : event('tool-call-delta', { index, delta: { message: { tool_calls: { function: { arguments: delta.partialJson } } } } });
      case 'signature':
        if (!this.warnings.some((w) => w.path === `content[${irIndex}].signature`)) {
          this.warnings.push(dropped(`content[${irIndex}].signature`, 'the reasoning signature'));
        }
        return '';
    }
  }

  /** Cohere opens every stream with message-start (the id and the role). */
  private start(): string {
    if (this.started) return '';
    this.started = true;
    return event('message-start', { id: this.id, delta: { message: { role: 'assistant' } } });
  }
}
