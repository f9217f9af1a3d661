import type { Finish, GatewayError, ProtocolId, StreamBlockStart, StreamDelta, StreamEvent, Usage } from '../../ir/index.ts';
import { canCarryThinking, carriedRedacted, carriedThinking } from '../shared/thinking-carrier.ts';
import { sseEvent } from '../../framing/sse-format.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { sseWarningsComment } from '../shared/stream-warnings.ts';
import { freeformInput } from '../shared/freeform-tool.ts';
import { dropped } from '../shared/warnings.ts';
import { streamErrorCode } from './errors.ts';
import { encodeFinishReason, type EncodedEnding } from './finish-reason.ts';
import { foreignReasoning } from './reasoning-item.ts';
import { itemId, responseObject } from './response-object.ts';
import type {
  ResponsesOutputCustomToolCall,
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesOutputTextPart,
  ResponsesReasoningItem,
} from './wire.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/** Where an IR block lives on the wire; `skipped` blocks have no Responses form. */
type BlockState =
  | { readonly kind: 'text'; readonly message: OpenMessage; readonly contentIndex: number; readonly part: ResponsesOutputTextPart; done: boolean }
  | { readonly kind: 'tool'; readonly outputIndex: number; readonly item: ResponsesOutputFunctionCall; done: boolean }
  /** A freeform tool's call: its JSON arguments are held, and the raw `input` is sent when the call ends. */
  | { readonly kind: 'custom'; readonly outputIndex: number; readonly item: ResponsesOutputCustomToolCall; args: string; done: boolean }
  | { readonly kind: 'reasoning'; readonly outputIndex: number; readonly item: ResponsesReasoningItem; summary: boolean; done: boolean; carry?: Carry }
  | { readonly kind: 'skipped'; done: boolean };

/** Claude's thinking being collected for the encrypted_content carrier (shared/thinking-carrier.ts). */
interface Carry {
  readonly origin: ProtocolId;
  signature: string;
}

interface OpenMessage {
  readonly outputIndex: number;
  readonly item: ResponsesOutputMessage;
}

/**
 * IR stream events to Responses SSE: response.created and response.in_progress first, then each
 * output item added, filled and done, and a terminal response.completed / response.incomplete /
 * response.failed that carries the whole output and the usage. Text blocks in a row share one
 * message item. The output is kept because the terminal event must repeat it; sequence numbers
 * count every event. An IR error becomes an `error` event followed by response.failed.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private id = 'resp_gateway';
  private model = '';
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private sequence = 0;
  private started = false;
  private ended = false;

  private readonly client: ClientContext;

  constructor(client: ClientContext = { streamUsage: false }) {
    this.client = client;
  }
  private readonly output: ResponsesOutputItem[] = [];
  private message: OpenMessage | undefined;
  private readonly blocks = new Map<number, BlockState>();
  private finish: Finish = { reason: 'stop', raw: null };
  private usage: Usage | null = null;

  encode(event: StreamEvent): string {
    if (this.ended) return '';
    switch (event.type) {
      case 'message_start':
        this.id = event.id || this.id;
        this.model = event.model;
        if (event.usage !== undefined) this.usage = event.usage;
        return this.start();
      case 'block_start':
        return this.start() + this.blockStart(event.index, event.block);
      case 'block_delta':
        return this.start() + this.blockDelta(event.index, event.delta);
      case 'block_stop':
        return this.blockStop(event.index);
      case 'finish':
        this.finish = event.finish;
        return this.start();
      case 'usage':
        this.usage = event.usage;
        return '';
      case 'error':
        return this.fail(event.error);
      case 'message_stop':
        return this.start() + this.end();
    }
  }

  private emit(type: string, payload: Record<string, unknown>): string {
    return sseEvent(JSON.stringify({ type, sequence_number: this.sequence++, ...payload }), type);
  }

  private response(ending: EncodedEnding | undefined) {
    return responseObject({
      id: this.id,
      model: this.model,
      createdAt: this.createdAt,
      ending,
      output: this.output,
      usage: ending === undefined ? null : this.usage,
    });
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const response = this.response(undefined);
    return this.emit('response.created', { response }) + this.emit('response.in_progress', { response });
  }

  private warnOnce(path: string, what: string): void {
    if (!this.warnings.some((w) => w.path === path)) this.warnings.push(dropped(path, what));
  }

  private addItem(item: ResponsesOutputItem): { outputIndex: number; wire: string } {
    const outputIndex = this.output.length;
    this.output.push(item);
    return { outputIndex, wire: this.emit('response.output_item.added', { output_index: outputIndex, item }) };
  }

  private blockStart(index: number, block: StreamBlockStart): string {
    if (block.type === 'text') return this.textStart(index);
    const wire = this.closeMessage();
    // A Gemini signature rides in the call_id (shared/signature-carrier.ts); no other protocol signs calls.
    if (block.type === 'tool_call' && block.signature !== undefined && block.signature.origin !== 'gemini')
      this.warnOnce('tool_call.signature', `tool-call signatures issued by the ${block.signature.origin} protocol`);
    if (block.type === 'tool_call' && this.client.freeformTools?.has(block.name) === true) {
      const item: ResponsesOutputCustomToolCall = {
        type: 'custom_tool_call',
        id: itemId('ctc', this.id, this.output.length),
        call_id: idWithSignature(block.id, block.signature),
        name: block.name,
        input: '',
      };
      const added = this.addItem({ ...item });
      this.blocks.set(index, { kind: 'custom', outputIndex: added.outputIndex, item, args: '', done: false });
      return wire + added.wire;
    }
    if (block.type === 'tool_call') {
      const item: ResponsesOutputFunctionCall = {
        type: 'function_call',
        id: itemId('fc', this.id, this.output.length),
        call_id: idWithSignature(block.id, block.signature),
        name: block.name,
        arguments: '',
        status: 'in_progress',
      };
      const added = this.addItem({ ...item });
      this.blocks.set(index, { kind: 'tool', outputIndex: added.outputIndex, item, done: false });
      return wire + added.wire;
    }
    // Only OpenAI's own reasoning can be shown (a client replays reasoning items to OpenAI), and
    // Claude's signed thinking, carried in encrypted_content for the client to send back.
    const carry = block.origin !== 'responses' && canCarryThinking(block.origin) ? { origin: block.origin as ProtocolId, signature: '' } : undefined;
    if (block.origin !== 'responses' && carry === undefined) {
      this.warnOnce('reasoning', foreignReasoning(block.origin));
      this.blocks.set(index, { kind: 'skipped', done: false });
      return wire;
    }
    const item: ResponsesReasoningItem = {
      type: 'reasoning',
      id: (block.type === 'reasoning' ? block.id : undefined) ?? itemId('rs', this.id, this.output.length),
      summary: [],
      ...(block.type === 'redacted_reasoning' && {
        encrypted_content: carry === undefined ? block.data : carriedRedacted(carry.origin, block.data),
      }),
    };
    const added = this.addItem({ ...item, summary: [] });
    this.blocks.set(index, {
      kind: 'reasoning',
      outputIndex: added.outputIndex,
      item,
      summary: false,
      done: false,
      ...(carry !== undefined && block.type === 'reasoning' && { carry }),
    });
    return wire + added.wire;
  }

  /** Text opens a message item unless one is open, then a new output_text part in it. */
  private textStart(index: number): string {
    let wire = '';
    if (this.message === undefined) {
      const item: ResponsesOutputMessage = {
        type: 'message',
        id: itemId('msg', this.id, this.output.length),
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      const added = this.addItem({ ...item, content: [] });
      this.message = { outputIndex: added.outputIndex, item };
      wire += added.wire;
    }
    const message = this.message;
    const part: ResponsesOutputTextPart = { type: 'output_text', text: '', annotations: [] };
    const contentIndex = message.item.content.length;
    message.item.content.push(part);
    this.blocks.set(index, { kind: 'text', message, contentIndex, part, done: false });
    return wire + this.emit('response.content_part.added', { ...this.at(message), content_index: contentIndex, part: { ...part, annotations: [] } });
  }

  private at(message: OpenMessage): { item_id: string; output_index: number } {
    return { item_id: message.item.id, output_index: message.outputIndex };
  }

  private blockDelta(index: number, delta: StreamDelta): string {
    const state = this.blocks.get(index);
    if (state === undefined) return '';
    if (state.kind === 'text' && delta.type === 'text') {
      state.part.text += delta.text;
      const { message } = state;
      return this.emit('response.output_text.delta', {
        item_id: message.item.id,
        output_index: message.outputIndex,
        content_index: state.contentIndex,
        delta: delta.text,
        logprobs: [],
      });
    }
    if (state.kind === 'tool' && delta.type === 'tool_arguments') {
      state.item.arguments += delta.partialJson;
      return this.emit('response.function_call_arguments.delta', { item_id: state.item.id, output_index: state.outputIndex, delta: delta.partialJson });
    }
    if (state.kind === 'custom' && delta.type === 'tool_arguments') {
      state.args += delta.partialJson;
      return '';
    }
    if (state.kind === 'reasoning' && delta.type === 'reasoning') {
      let wire = '';
      if (!state.summary) {
        state.summary = true;
        state.item.summary.push({ type: 'summary_text', text: '' });
        wire += this.emit('response.reasoning_summary_part.added', {
          item_id: state.item.id,
          output_index: state.outputIndex,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
      }
      const summary = state.item.summary[0];
      if (summary !== undefined) summary.text += delta.text;
      return (
        wire +
        this.emit('response.reasoning_summary_text.delta', { item_id: state.item.id, output_index: state.outputIndex, summary_index: 0, delta: delta.text })
      );
    }
    if (state.kind === 'reasoning' && delta.type === 'signature') {
      // The block start already checked the origin: OpenAI's encrypted reasoning, or Claude's signature to carry.
      if (state.carry !== undefined) state.carry.signature += delta.signature;
      else state.item.encrypted_content = (state.item.encrypted_content ?? '') + delta.signature;
    }
    return '';
  }

  private blockStop(index: number): string {
    const state = this.blocks.get(index);
    if (state === undefined || state.done) return '';
    state.done = true;
    switch (state.kind) {
      case 'text': {
        const at = { ...this.at(state.message), content_index: state.contentIndex };
        return (
          this.emit('response.output_text.done', { ...at, text: state.part.text, logprobs: [] }) +
          this.emit('response.content_part.done', { ...at, part: state.part })
        );
      }
      case 'tool':
        state.item.status = 'completed';
        return (
          this.emit('response.function_call_arguments.done', { item_id: state.item.id, output_index: state.outputIndex, arguments: state.item.arguments }) +
          this.itemDone(state.outputIndex, state.item)
        );
      case 'custom': {
        const at = { item_id: state.item.id, output_index: state.outputIndex };
        state.item.input = freeformInput(state.args);
        return (
          this.emit('response.custom_tool_call_input.delta', { ...at, delta: state.item.input }) +
          this.emit('response.custom_tool_call_input.done', { ...at, input: state.item.input }) +
          this.itemDone(state.outputIndex, state.item)
        );
      }
      case 'reasoning': {
        const summary = state.item.summary[0];
        if (state.carry !== undefined && state.carry.signature !== '')
          state.item.encrypted_content = carriedThinking(state.carry.origin, summary?.text ?? '', state.carry.signature);
        const at = { item_id: state.item.id, output_index: state.outputIndex, summary_index: 0 };
        const wire =
          summary === undefined
            ? ''
            : this.emit('response.reasoning_summary_text.done', { ...at, text: summary.text }) +
              this.emit('response.reasoning_summary_part.done', { ...at, part: summary });
        return wire + this.itemDone(state.outputIndex, state.item);
      }
      case 'skipped':
        return '';
    }
  }

  private itemDone(outputIndex: number, item: ResponsesOutputItem): string {
    this.output[outputIndex] = item;
    return this.emit('response.output_item.done', { output_index: outputIndex, item });
  }

  /** A message item ends when a block of another kind starts, or at the end. */
  private closeMessage(atEnd = false): string {
    const message = this.message;
    if (message === undefined) return '';
    this.message = undefined;
    let wire = '';
    for (const [index, state] of this.blocks) if (state.kind === 'text' && state.message === message) wire += this.blockStop(index);
    // Closed at the end of a response cut short, the message is incomplete too (as OpenAI says).
    message.item.status = atEnd && encodeFinishReason(this.finish, true).status === 'incomplete' ? 'incomplete' : 'completed';
    return wire + this.itemDone(message.outputIndex, message.item);
  }

  /** Blocks still open are finished first, so the terminal event repeats complete items only. */
  private end(): string {
    let wire = '';
    for (const index of this.blocks.keys()) wire += this.blockStop(index);
    wire += this.closeMessage(true);
    this.ended = true;
    // A refusal already streamed as output_text can only still be told as a content filter.
    const ending = encodeFinishReason(this.finish, true);
    const type = ending.status === 'completed' ? 'response.completed' : ending.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    return wire + sseWarningsComment(this.client, this.warnings) + this.emit(type, { response: this.response(ending) });
  }

  private fail(error: GatewayError): string {
    this.ended = true;
    const code = streamErrorCode(error);
    const failure = { code, message: error.message };
    return (
      this.emit('error', { code, message: error.message, param: error.param ?? null }) +
      this.emit('response.failed', { response: this.response({ status: 'failed', incompleteDetails: null, error: failure }) })
    );
  }
}
