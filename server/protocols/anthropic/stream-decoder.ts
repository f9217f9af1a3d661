import type { StreamEvent } from '../../ir/index.ts';
import type { SseEvent } from '../../framing/sse-parser.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { decodeErrorObject } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { plainTextDelta } from './text-delta-event.ts';
import { decodeUsage } from './usage.ts';
import type { ContentBlock as AnthropicBlock, Usage as AnthropicUsage } from '../../../generated/protocols/anthropic/response.ts';

interface AnthropicStreamPayload {
  type: string;
  index?: number;
  message?: { id: string; model: string; usage?: AnthropicUsage };
  content_block?: AnthropicBlock | { type: string };
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: Partial<AnthropicUsage>;
  error?: { type?: string; message?: string };
}

/** Messages SSE (`event:` + `data:`) to IR stream events. */
export class AnthropicStreamDecoder extends SseStreamDecoder {
  /** Anthropic block index -> IR index; blocks with no IR form (server tools) are absent. */
  private readonly indices = new Map<number, number>();
  private nextIndex = 0;
  // Members are copied in by name from each message_delta, known or not (a usage object is open).
  private usage: AnthropicUsage & Record<string, unknown> = { input_tokens: 0, output_tokens: 0 };

  constructor() {
    super('Anthropic');
  }

  protected onEvent({ data }: SseEvent, out: StreamEvent[]): void {
    const plain = plainTextDelta(data);
    if (plain !== undefined) {
      // What onBlockDelta makes of the same event parsed.
      const index = this.indices.get(plain.index);
      if (index !== undefined && plain.text !== '') out.push({ type: 'block_delta', index, delta: { type: 'text', text: plain.text } });
      return;
    }
    const payload = this.parsePayload<AnthropicStreamPayload>(data, out);
    if (payload === undefined) return;
    switch (payload.type) {
      case 'message_start': {
        const message = payload.message ?? { id: '', model: '' };
        if (message.usage !== undefined) this.usage = { ...message.usage };
        out.push({ type: 'message_start', id: message.id, model: message.model, usage: decodeUsage(this.usage) });
        return;
      }
      case 'content_block_start':
        this.onBlockStart(payload.index ?? 0, payload.content_block, out);
        return;
      case 'content_block_delta':
        this.onBlockDelta(payload, out);
        return;
      case 'content_block_stop': {
        const index = this.indices.get(payload.index ?? 0);
        if (index !== undefined) out.push({ type: 'block_stop', index });
        return;
      }
      case 'message_delta':
        if (payload.usage !== undefined) {
          // message_delta usage is cumulative and may restate input and cache counts.
          for (const [key, value] of Object.entries(payload.usage)) if (value !== null && value !== undefined) this.usage[key] = value;
          out.push({ type: 'usage', usage: decodeUsage(this.usage) });
        }
        if (payload.delta?.stop_reason !== undefined && payload.delta.stop_reason !== null) {
          out.push({ type: 'finish', finish: decodeFinishReason(payload.delta.stop_reason, payload.delta.stop_sequence ?? null) });
        }
        return;
      case 'message_stop':
        out.push({ type: 'message_stop' });
        this.done = true;
        return;
      case 'error': {
        out.push({ type: 'error', error: decodeErrorObject(payload.error, undefined, 'upstream stream error') });
        this.done = true;
        return;
      }
      default:
        return; // ping and event types newer than this codec carry nothing to translate
    }
  }

  private onBlockStart(wireIndex: number, block: AnthropicStreamPayload['content_block'], out: StreamEvent[]): void {
    if (block === undefined) return;
    const index = this.nextIndex;
    switch (block.type) {
      case 'text': {
        out.push({ type: 'block_start', index, block: { type: 'text' } });
        const text = (block as { text?: string }).text;
        if (text) out.push({ type: 'block_delta', index, delta: { type: 'text', text } });
        break;
      }
      case 'tool_use': {
        const b = block as { id: string; name: string; input?: unknown };
        out.push({ type: 'block_start', index, block: { type: 'tool_call', id: b.id, name: b.name } });
        const input = b.input !== undefined && b.input !== null && Object.keys(b.input).length > 0 ? JSON.stringify(b.input) : '';
        if (input) out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: input } });
        break;
      }
      case 'thinking':
        out.push({ type: 'block_start', index, block: { type: 'reasoning', origin: 'anthropic' } });
        break;
      case 'redacted_thinking':
        out.push({ type: 'block_start', index, block: { type: 'redacted_reasoning', data: (block as { data: string }).data, origin: 'anthropic' } });
        break;
      default:
        return;
    }
    this.indices.set(wireIndex, index);
    this.nextIndex++;
  }

  private onBlockDelta(payload: AnthropicStreamPayload, out: StreamEvent[]): void {
    const index = this.indices.get(payload.index ?? 0);
    const delta = payload.delta;
    if (index === undefined || delta === undefined) return;
    if (delta.type === 'text_delta' && delta.text) out.push({ type: 'block_delta', index, delta: { type: 'text', text: delta.text } });
    else if (delta.type === 'input_json_delta' && delta.partial_json) {
      out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: delta.partial_json } });
    } else if (delta.type === 'thinking_delta' && delta.thinking) {
      out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text: delta.thinking } });
    } else if (delta.type === 'signature_delta' && delta.signature) {
      out.push({ type: 'block_delta', index, delta: { type: 'signature', signature: delta.signature } });
    }
  }
}
