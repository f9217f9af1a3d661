import { gatewayError, type StreamEvent, type Usage } from '../../ir/index.ts';
import type { SseEvent } from '../../framing/sse-parser.ts';
import { BlockTracker } from '../shared/block-tracker.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { ResponseCallIds, responseIdOf } from './call-ids.ts';
import { decodeErrorObject } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { JsonArrayParser } from './json-array-parser.ts';
import { decodeUsage } from './usage.ts';
import type { Part as GeminiPart } from '../../../generated/protocols/gemini/response.ts';
import type { GeminiStreamChunk } from './wire.ts';

const PROTOCOL = 'Gemini';

/**
 * streamGenerateContent to IR stream events. With `alt=sse` each `data:` line is a partial
 * GenerateContentResponse; without it the body is one JSON array of them, written as they come;
 * the first byte that is not white space tells which. There is no terminator: the stream is complete
 * at the chunk that carries a finishReason (or a blocked prompt's promptFeedback). Text arrives in
 * pieces, function calls whole; usageMetadata is cumulative on every chunk, so message_start carries
 * the first chunk's figures and one usage event the last ones, at the end.
 */
export class GeminiStreamDecoder extends SseStreamDecoder {
  private framing: 'unknown' | 'sse' | 'array' = 'unknown';
  private readonly held: Uint8Array[] = [];
  private readonly array = new JsonArrayParser();
  private readonly blocks = new BlockTracker();
  private ids: ResponseCallIds | undefined;
  private toolCalls = 0;
  private usage: Usage | undefined;

  constructor() {
    super(PROTOCOL);
  }

  override push(chunk: Uint8Array): StreamEvent[] {
    if (this.framing === 'unknown') {
      this.held.push(chunk);
      const first = chunk.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
      if (first === undefined) return [];
      this.framing = first === 0x5b ? 'array' : 'sse'; // '['
      const held = Buffer.concat(this.held.splice(0));
      return this.framing === 'sse' ? super.push(held) : this.pushArray(held);
    }
    return this.framing === 'sse' ? super.push(chunk) : this.pushArray(chunk);
  }

  override end(): StreamEvent[] {
    if (this.framing !== 'array') return super.end();
    const out = this.onArrayItems(this.array.end());
    this.endIfTruncated(out);
    return out;
  }

  protected onEvent({ data }: SseEvent, out: StreamEvent[]): void {
    const chunk = this.parsePayload<GeminiStreamChunk>(data, out);
    if (chunk !== undefined) this.onChunk(chunk, out);
  }

  /** A cut stream still reports the last usage it saw: the tokens were spent. */
  protected override beforeTruncation(out: StreamEvent[]): void {
    this.blocks.close(out);
    if (this.usage !== undefined) out.push({ type: 'usage', usage: this.usage });
  }

  private pushArray(chunk: Uint8Array): StreamEvent[] {
    return this.done ? [] : this.onArrayItems(this.array.push(chunk));
  }

  private onArrayItems({ elements, malformed }: { elements: string[]; malformed: boolean }): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const element of elements) {
      if (this.done) break;
      const chunk = this.parsePayload<GeminiStreamChunk>(element, out);
      if (chunk !== undefined) this.onChunk(chunk, out);
    }
    if (malformed && !this.done) {
      out.push({
        type: 'error',
        error: gatewayError('server', `the ${PROTOCOL} upstream sent a stream that is not a JSON array of responses`, {
          status: 502,
          code: 'bad_upstream_stream',
        }),
      });
      this.done = true;
    }
    return out;
  }

  private onChunk(chunk: GeminiStreamChunk, out: StreamEvent[]): void {
    if (chunk.error !== undefined && chunk.error !== null) {
      out.push({ type: 'error', error: decodeErrorObject(chunk.error, undefined, 'upstream stream error') });
      this.done = true;
      return;
    }
    if (chunk.usageMetadata !== undefined) this.usage = decodeUsage(chunk.usageMetadata);
    if (this.ids === undefined) {
      const id = responseIdOf(chunk);
      this.ids = new ResponseCallIds(id);
      out.push({ type: 'message_start', id, model: chunk.modelVersion ?? '', ...(this.usage !== undefined && { usage: this.usage }) });
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.onPart(part, this.ids, out);
    const blockReason = chunk.promptFeedback?.blockReason;
    if (candidate?.finishReason !== undefined && candidate.finishReason !== null) {
      this.finish(decodeFinishReason(candidate.finishReason, this.toolCalls > 0), out);
    } else if (candidate === undefined && typeof blockReason === 'string') {
      this.finish({ reason: 'content_filter', raw: blockReason }, out);
    }
  }

  private finish(finish: Extract<StreamEvent, { type: 'finish' }>['finish'], out: StreamEvent[]): void {
    this.blocks.close(out);
    out.push({ type: 'finish', finish });
    if (this.usage !== undefined) out.push({ type: 'usage', usage: this.usage });
    out.push({ type: 'message_stop' });
    this.done = true;
  }

  private onPart(part: GeminiPart, ids: ResponseCallIds, out: StreamEvent[]): void {
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    if (part.functionCall !== undefined && part.functionCall !== null) {
      // Calls arrive whole: each is one block with its arguments in one delta.
      const call = part.functionCall;
      const start = {
        type: 'tool_call' as const,
        id: ids.call(call.name, call.id),
        name: call.name,
        ...(signature !== undefined && { signature: { origin: 'gemini' as const, value: signature } }),
      };
      const index = this.blocks.ensure(`tool:${this.toolCalls++}`, start, out);
      out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson: argumentsFromObject(call.args ?? {}) } });
      this.blocks.close(out);
      return;
    }
    if (typeof part.text !== 'string' && signature === undefined) return; // media and code parts have no stream form in the IR
    const text = part.text ?? '';
    if (text === '' && signature === undefined) return;
    const index =
      part.thought === true ? this.blocks.ensure('reasoning', { type: 'reasoning', origin: 'gemini' }, out) : this.blocks.ensure('text', { type: 'text' }, out);
    if (text !== '') out.push({ type: 'block_delta', index, delta: part.thought === true ? { type: 'reasoning', text } : { type: 'text', text } });
    if (signature !== undefined) out.push({ type: 'block_delta', index, delta: { type: 'signature', signature } });
  }
}
