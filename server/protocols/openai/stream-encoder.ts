import type { StreamEvent, Usage } from '../../ir/index.ts';
import { sseEvent } from '../../framing/sse-format.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { sseWarningsComment } from '../shared/stream-warnings.ts';
import { dropped } from '../shared/warnings.ts';
import { errorBody } from './errors.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { Delta as OpenAIChunkDelta } from '../../../generated/protocols/openai/stream-event.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/** Stands in for a text delta while a text chunk's frame is made: no id or model can hold it (it is not valid UTF-16). */
const TEXT_SLOT = '\uDC00slot\uD800';
const TEXT_SLOT_JSON = JSON.stringify(TEXT_SLOT);

/** IR stream events to Chat Completions SSE, ending with `data: [DONE]`. */
export class OpenAIStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private id = 'chatcmpl-gateway';
  private model = '';
  private readonly created = Math.floor(Date.now() / 1000);
  private started = false;
  private usage: Usage | undefined;
  /** IR block index -> OpenAI tool_calls[].index */
  private readonly toolIndex = new Map<number, number>();
  private readonly client: ClientContext;
  /** A text chunk's bytes around its text, for the answer's id and model (see `textChunk`). */
  private textFrame: { readonly id: string; readonly model: string; readonly before: string; readonly after: string } | undefined;

  constructor(client: ClientContext) {
    this.client = client;
  }

  encode(event: StreamEvent): string {
    switch (event.type) {
      case 'message_start':
        this.id = event.id;
        this.model = event.model;
        return this.start();
      case 'block_start':
        if (event.block.type === 'redacted_reasoning') this.warnings.push(dropped(`content[${event.index}]`, 'encrypted reasoning'));
        if (event.block.type !== 'tool_call') return this.start();
        this.toolIndex.set(event.index, this.toolIndex.size);
        return (
          this.start() +
          this.chunk({
            tool_calls: [
              {
                index: this.toolIndex.size - 1,
                id: idWithSignature(event.block.id, event.block.signature),
                type: 'function',
                function: { name: event.block.name, arguments: '' },
              },
            ],
          })
        );
      case 'block_delta':
        return this.start() + this.delta(event.index, event.delta);
      case 'block_stop':
        return '';
      case 'finish':
        return this.start() + this.chunk({}, encodeFinishReason(event.finish));
      case 'usage':
        this.usage = event.usage;
        return '';
      case 'error':
        return sseEvent(JSON.stringify(errorBody(event.error)));
      case 'message_stop': {
        const usage =
          this.client.streamUsage && this.usage !== undefined ? sseEvent(JSON.stringify({ ...this.base(), choices: [], usage: encodeUsage(this.usage) })) : '';
        return this.start() + usage + sseWarningsComment(this.client, this.warnings) + 'data: [DONE]\n\n';
      }
    }
  }

  private delta(index: number, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): string {
    switch (delta.type) {
      case 'text':
        return this.textChunk(delta.text);
      case 'tool_arguments':
        return this.chunk({ tool_calls: [{ index: this.toolIndex.get(index) ?? 0, function: { arguments: delta.partialJson } }] });
      case 'reasoning':
        // The OpenAI-compatible ecosystem's place for reasoning (DeepSeek, vLLM, OpenRouter-style clients).
        return this.chunk({ reasoning_content: delta.text });
      case 'signature':
        if (!this.warnings.some((w) => w.path === 'reasoning.signature')) this.warnings.push(dropped('reasoning.signature', 'the reasoning signature'));
        return '';
    }
  }

  /** OpenAI opens every stream with a role-only chunk. */
  private start(): string {
    if (this.started) return '';
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' });
  }

  private base() {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model };
  }

  /**
   * A text delta's chunk, the most common event by far: the same bytes `chunk({ content: text })`
   * makes, from the text and two pieces of text made once per answer (they change only when
   * message_start names the answer).
   */
  private textChunk(text: string): string {
    let frame = this.textFrame;
    if (frame === undefined || frame.id !== this.id || frame.model !== this.model) {
      const whole = this.chunk({ content: TEXT_SLOT });
      const at = whole.lastIndexOf(TEXT_SLOT_JSON); // the text is the last string in a chunk
      frame = this.textFrame = { id: this.id, model: this.model, before: whole.slice(0, at), after: whole.slice(at + TEXT_SLOT_JSON.length) };
    }
    return frame.before + JSON.stringify(text) + frame.after;
  }

  private chunk(delta: OpenAIChunkDelta, finishReason: string | null = null): string {
    const usage = this.client.streamUsage ? { usage: null } : {};
    return sseEvent(JSON.stringify({ ...this.base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...usage }));
  }
}
