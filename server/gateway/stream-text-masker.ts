import type { StreamDelta, StreamEvent } from '../ir/index.ts';
import type { CredentialMask } from './credential-mask.ts';

/**
 * A translated stream's text (and reasoning and tool arguments), delta by delta, with the operator's
 * credentials masked even when a key is cut across deltas: each block's tail that could be the
 * beginning of a key is held back (only those characters, usually none) and put in front of the
 * block's next delta; the block's end, or the message's, gives back what is still held.
 * Works on the IR, so it holds for every client protocol, framings without events included.
 */
export class StreamTextMasker {
  private readonly mask: CredentialMask;
  /** Held tails per block index; made on first use. */
  private held: Map<number, StreamDelta> | undefined;

  constructor(mask: CredentialMask) {
    this.mask = mask;
  }

  /** The events to encode in place of `event`, in order. */
  pass(event: StreamEvent): StreamEvent[] {
    if (this.mask.isEmpty) return [event];
    switch (event.type) {
      case 'block_delta': {
        const text = textOf(event.delta);
        if (text === undefined) return [event];
        const before = this.held?.get(event.index);
        const joined = this.mask.maskText(before === undefined ? text : textOf(before) + text);
        const keep = this.mask.heldTextPrefix(joined);
        if (keep === 0) this.held?.delete(event.index);
        else (this.held ??= new Map()).set(event.index, withText(event.delta, joined.slice(joined.length - keep)));
        const sent = joined.slice(0, joined.length - keep);
        if (sent === text) return [event];
        return sent === '' ? [] : [{ ...event, delta: withText(event.delta, sent) }];
      }
      case 'block_stop':
        return [...this.release(event.index), event];
      case 'finish':
      case 'message_stop':
      case 'error':
        return [...this.flush(), event];
      default:
        return [event];
    }
  }

  /** Every held tail, as deltas of their blocks (the stream is ending). */
  flush(): StreamEvent[] {
    if (this.held === undefined || this.held.size === 0) return [];
    return [...this.held.keys()].flatMap((index) => this.release(index));
  }

  private release(index: number): StreamEvent[] {
    const delta = this.held?.get(index);
    if (delta === undefined) return [];
    this.held!.delete(index);
    return [{ type: 'block_delta', index, delta }];
  }
}

function textOf(delta: StreamDelta): string | undefined {
  if (delta.type === 'text' || delta.type === 'reasoning') return delta.text;
  if (delta.type === 'tool_arguments') return delta.partialJson;
  return undefined;
}

function withText(delta: StreamDelta, text: string): StreamDelta {
  if (delta.type === 'tool_arguments') return { type: 'tool_arguments', partialJson: text };
  if (delta.type === 'text' || delta.type === 'reasoning') return { type: delta.type, text };
  return delta;
}
