import { gatewayError, type StreamEvent } from '../../ir/index.ts';
import type { SseEvent } from '../../framing/sse-parser.ts';
import { BlockTracker } from '../shared/block-tracker.ts';
import { ContentChunkTemplate } from './content-chunk-template.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { streamErrorKind } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';
import type { OpenAIStreamPayload } from './wire.ts';

/** Chat Completions SSE (`data:` chunks, `data: [DONE]`) to IR stream events. */
export class OpenAIStreamDecoder extends SseStreamDecoder {
  private readonly blocks = new BlockTracker();
  private started = false;
  private sawRefusal = false;
  /** Text chunks like one already parsed are read without a parse (undefined: every chunk is parsed). */
  private readonly template: ContentChunkTemplate | undefined;

  /**
   * `parseEvery`: no template, every chunk through JSON.parse (what the template must agree with).
   * `template`: another decoder's, for the same stream's end (`forStreamEnd`).
   */
  constructor(options: { readonly parseEvery?: boolean; readonly template?: ContentChunkTemplate } = {}) {
    super('OpenAI');
    this.template = options.parseEvery === true ? undefined : (options.template ?? new ContentChunkTemplate());
  }

  /**
   * The tail's decoder shares this one's template (learned from the stream's first text chunk):
   * the last events' text chunks are read through it from the first, not one of them parsed to
   * learn it again. It counts as started: a message_start carries nothing from mid-stream (no
   * usage in this protocol), so none is made for the end read.
   */
  forStreamEnd(): OpenAIStreamDecoder {
    const decoder = new OpenAIStreamDecoder(this.template === undefined ? { parseEvery: true } : { template: this.template });
    decoder.started = true;
    return decoder;
  }

  protected override beforeTruncation(out: StreamEvent[]): void {
    this.blocks.close(out);
  }

  protected onEvent({ data }: SseEvent, out: StreamEvent[]): void {
    if (data === '[DONE]') {
      this.blocks.close(out);
      out.push({ type: 'message_stop' });
      this.done = true;
      return;
    }
    // What the parse below makes of the template's chunk with this text: its block's delta.
    const plain = this.started ? this.template?.text(data) : undefined;
    if (plain !== undefined) {
      if (plain === '') return;
      const index = this.blocks.ensure('text', { type: 'text' }, out);
      out.push({ type: 'block_delta', index, delta: { type: 'text', text: plain } });
      return;
    }
    const chunk = this.parsePayload<OpenAIStreamPayload>(data, out);
    if (chunk === undefined) return;
    this.template?.learn(data, chunk);
    if (chunk.error !== undefined) {
      const e = chunk.error;
      out.push({
        type: 'error',
        error: gatewayError(streamErrorKind(e.type, e.code), e.message ?? 'upstream stream error', { code: e.code ?? e.type ?? null }),
      });
      this.done = true;
      return;
    }
    if (!this.started) {
      this.started = true;
      out.push({ type: 'message_start', id: chunk.id ?? '', model: chunk.model ?? '' });
    }
    const choice = chunk.choices?.[0];
    if (choice !== undefined) {
      const delta = choice.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
        const index = this.blocks.ensure('reasoning', { type: 'reasoning' }, out);
        out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text: delta.reasoning_content } });
      }
      const text = typeof delta.content === 'string' && delta.content !== '' ? delta.content : undefined;
      const refusal = typeof delta.refusal === 'string' && delta.refusal !== '' ? delta.refusal : undefined;
      if (refusal !== undefined) this.sawRefusal = true;
      for (const piece of [text, refusal]) {
        if (piece === undefined) continue;
        const index = this.blocks.ensure('text', { type: 'text' }, out);
        out.push({ type: 'block_delta', index, delta: { type: 'text', text: piece } });
      }
      for (const call of delta.tool_calls ?? []) {
        const index = this.blocks.ensure(`tool:${call.index}`, { type: 'tool_call', id: call.id ?? '', name: call.function?.name ?? '' }, out);
        const args = call.function?.arguments;
        if (typeof args === 'string' && args !== '') out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: args } });
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        this.blocks.close(out);
        const finish = decodeFinishReason(choice.finish_reason);
        out.push({ type: 'finish', finish: this.sawRefusal ? { reason: 'refusal', raw: finish.raw } : finish });
      }
    }
    if (chunk.usage !== undefined && chunk.usage !== null) out.push({ type: 'usage', usage: decodeUsage(chunk.usage) });
  }
}
