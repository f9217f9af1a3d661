import { SseParser, type SseEvent } from '../framing/sse-parser.ts';
import { sseEvent } from '../framing/sse-format.ts';
import { lastSseEventEnd } from '../framing/sse-event-end.ts';
import type { StreamEvent } from '../ir/index.ts';
import type { StreamDecoder } from '../protocols/codec.ts';

/** Events kept from a relayed stream's end: enough to hold a terminator and what precedes it. */
const KEPT_EVENTS = 8;

/**
 * After commit, a same-protocol SSE stream only needs its end read: did the terminator come?
 * Instead of decoding every event (a JSON parse each), the bytes are only framed (cheap), the
 * last few events kept, and at the end a fresh decoder reads those. SSE terminators (`[DONE]`,
 * `message_stop`, `response.completed`, `message-end`, a chunk with `finishReason`) are
 * self-contained events, so a decoder that starts mid-stream still recognises them, and an
 * event cut off mid-way still reads as broken.
 */
export class StreamTail {
  private readonly sse = new SseParser();
  private readonly last: SseEvent[] = [];

  /**
   * The bytes relayed before commit: an event they leave unfinished (cut at the commit point)
   * continues in what follows, so its start is kept.
   */
  startAfter(committed: Buffer): void {
    const boundary = lastSseEventEnd(committed);
    if (boundary === 0) {
      this.push(committed); // all of it is one unfinished event
      return;
    }
    if (boundary < committed.length) this.push(committed.subarray(boundary));
  }

  push(bytes: Uint8Array): void {
    this.keep(this.sse.push(bytes));
  }

  /**
   * The events a fresh decoder reads from the kept ones (`relayed`: what the client was sent),
   * then from its end (`end`: where a stream cut short shows as an error).
   */
  readEnd(decoder: StreamDecoder): { readonly relayed: StreamEvent[]; readonly end: StreamEvent[] } {
    this.keep(this.sse.end());
    const text = this.last.map((e) => sseEvent(e.data, e.event)).join('');
    return { relayed: decoder.push(Buffer.from(text)), end: decoder.end() };
  }

  /** In place: this runs for every read of a relayed stream. */
  private keep(events: SseEvent[]): void {
    if (events.length === 0) return;
    this.last.push(...events);
    if (this.last.length > KEPT_EVENTS) this.last.splice(0, this.last.length - KEPT_EVENTS);
  }
}
