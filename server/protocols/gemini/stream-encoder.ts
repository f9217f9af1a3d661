import { GatewayFailure, type Finish, type ProtocolId, type StreamEvent, type Usage, type OpaqueSignature } from '../../ir/index.ts';
import type { ClientContext, StreamEncoder, TranslationWarning } from '../codec.ts';
import { sseWarningsComment } from '../shared/stream-warnings.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { dropped } from '../shared/warnings.ts';
import { signatureOf } from './encode-parts.ts';
import { unattached, type PendingThinking } from './encode-response.ts';
import { canCarryThinking, carriedRedacted, carriedThinking } from '../shared/thinking-carrier.ts';
import { errorBody } from './errors.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { Part as GeminiPart } from '../../../generated/protocols/gemini/response.ts';
import type { GeminiStreamChunk } from './wire.ts';

type OpenBlock =
  | { readonly kind: 'text' }
  | { readonly kind: 'reasoning'; readonly origin: ProtocolId | undefined; text: string; signature: string }
  | { readonly kind: 'tool'; readonly name: string; readonly signature: OpaqueSignature | undefined; arguments: string }
  | { readonly kind: 'none' };

/**
 * IR stream events to streamGenerateContent: SSE `data:` lines (alt=sse), or, when the client
 * asked without alt=sse, the elements of one JSON array (`[` before the first, `,\r\n` between,
 * `]` at the end). Each text or thought delta is one chunk; a function call is sent whole when its
 * block stops, since Gemini never streams arguments. Finish and usage are held for the last chunk,
 * which is how a Gemini client knows the stream is complete.
 */
export class GeminiStreamEncoder implements StreamEncoder {
  readonly warnings: TranslationWarning[] = [];
  private readonly jsonArray: boolean;
  private id = '';
  private model = '';
  private usage: Usage | undefined;
  private finish: Finish | undefined;
  private readonly blocks = new Map<number, OpenBlock>();
  private elements = 0;
  private closed = false;
  /** Claude's signed thinking waiting for the next function call's thoughtSignature. */
  private thinking: PendingThinking | undefined;

  private readonly client: ClientContext;

  constructor(client: ClientContext) {
    this.client = client;
    this.jsonArray = client.jsonArrayStream === true;
  }

  encode(event: StreamEvent): string {
    if (this.closed) return '';
    switch (event.type) {
      case 'message_start':
        this.id = event.id;
        this.model = event.model;
        if (event.usage !== undefined) this.usage = event.usage;
        return '';
      case 'block_start':
        this.blocks.set(event.index, this.open(event.block, event.index));
        return '';
      case 'block_delta':
        return this.delta(event.index, event.delta);
      case 'block_stop':
        return this.stop(event.index);
      case 'finish':
        this.finish = event.finish;
        return '';
      case 'usage':
        this.usage = event.usage;
        return '';
      case 'error':
        return this.element(errorBody(event.error)) + this.close();
      case 'message_stop': {
        // A call the upstream left open (cut by the token limit) is sent or refused like a stopped one, never lost.
        let open = '';
        for (const index of [...this.blocks.keys()]) {
          open += this.stop(index);
          if (this.closed) return open;
        }
        if (this.thinking !== undefined) this.warnings.push(unattached(this.thinking));
        this.thinking = undefined;
        const last: GeminiStreamChunk = {
          candidates: [{ finishReason: encodeFinishReason(this.finish ?? { reason: 'stop', raw: null }), index: 0 }],
          ...this.envelope(),
        };
        // JSON has no comments and any extra element or member reaches the client's parser: log only.
        const note = this.jsonArray ? '' : sseWarningsComment(this.client, this.warnings);
        return open + note + this.element(last) + this.close();
      }
    }
  }

  private open(block: Extract<StreamEvent, { type: 'block_start' }>['block'], index: number): OpenBlock {
    switch (block.type) {
      case 'text':
        return { kind: 'text' };
      case 'reasoning':
        return { kind: 'reasoning', origin: block.origin, text: '', signature: '' };
      case 'tool_call':
        return { kind: 'tool', name: block.name, signature: block.signature, arguments: '' };
      case 'redacted_reasoning':
        if (canCarryThinking(block.origin))
          this.pend({ value: carriedRedacted(block.origin as ProtocolId, block.data), path: `content[${index}]`, origin: block.origin });
        else this.warnings.push(dropped(`content[${index}]`, 'encrypted reasoning'));
        return { kind: 'none' };
    }
  }

  private delta(index: number, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): string {
    const block = this.blocks.get(index);
    switch (delta.type) {
      case 'text':
        return this.parts([{ text: delta.text }]);
      case 'reasoning':
        if (block?.kind === 'reasoning') block.text += delta.text;
        return this.parts([{ text: delta.text, thought: true }]);
      case 'tool_arguments':
        if (block?.kind === 'tool') block.arguments += delta.partialJson;
        return '';
      case 'signature':
        // A text signature can only come from Gemini (no other protocol signs text); a thought's must be Gemini's.
        if (block?.kind === 'text') return this.parts([{ text: '', thoughtSignature: delta.signature }]);
        if (block?.kind === 'reasoning' && block.origin === 'gemini') return this.parts([{ text: '', thought: true, thoughtSignature: delta.signature }]);
        if (block?.kind === 'reasoning' && canCarryThinking(block.origin)) {
          block.signature += delta.signature; // carried on the next function call (shared/thinking-carrier.ts)
          return '';
        }
        this.warnings.push(
          dropped(
            `content[${index}].signature`,
            `a reasoning signature issued by the ${block?.kind === 'reasoning' ? (block.origin ?? 'unknown') : 'unknown'} protocol`,
          ),
        );
        return '';
    }
  }

  private stop(index: number): string {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (block?.kind === 'reasoning' && block.signature !== '' && block.origin !== undefined && canCarryThinking(block.origin)) {
      this.pend({ value: carriedThinking(block.origin, block.text, block.signature), path: `content[${index}].signature`, origin: block.origin });
    }
    if (block?.kind !== 'tool') return '';
    let args: Record<string, unknown>;
    try {
      args = argumentsToObject(block.arguments, `content[${index}].arguments`, 'upstream');
    } catch (error) {
      if (!(error instanceof GatewayFailure)) throw error;
      return this.element(errorBody(error.error)) + this.close();
    }
    const part: GeminiPart = { functionCall: { name: block.name, args }, ...signatureOf(block.signature, `content[${index}]`, this.warnings) };
    if (part.thoughtSignature === undefined && this.thinking !== undefined) {
      part.thoughtSignature = this.thinking.value;
      this.thinking = undefined;
    }
    return this.parts([part]);
  }

  /** Only one thinking block waits at a time: an earlier one that found no call is reported. */
  private pend(thinking: PendingThinking): void {
    if (this.thinking !== undefined) this.warnings.push(unattached(this.thinking));
    this.thinking = thinking;
  }

  private parts(parts: GeminiPart[]): string {
    return this.element({ candidates: [{ content: { role: 'model', parts }, index: 0 }], ...this.envelope() });
  }

  /** What Gemini repeats on every chunk: usage so far, the model version and the response id. */
  private envelope(): GeminiStreamChunk {
    return {
      ...(this.usage !== undefined && { usageMetadata: encodeUsage(this.usage) }),
      ...(this.model !== '' && { modelVersion: this.model }),
      ...(this.id !== '' && { responseId: this.id }),
    };
  }

  private element(payload: object): string {
    const json = JSON.stringify(payload);
    if (!this.jsonArray) return `data: ${json}\r\n\r\n`;
    return (this.elements++ === 0 ? '[' : '\n,\r\n') + json;
  }

  /** Nothing may follow the last chunk or an error; the JSON array form needs its `]`. */
  private close(): string {
    this.closed = true;
    if (!this.jsonArray) return '';
    return this.elements === 0 ? '[]' : '\n]';
  }
}
