import { SseParser, type SseEvent } from '../framing/sse-parser.ts';
import { sseEvent } from '../framing/sse-format.ts';
import { lastSseEventEnd } from '../framing/sse-event-end.ts';
import { MAX_STREAM_EVENT_CHARS } from '../framing/stream-event-limit.ts';
import type { StreamEvent } from '../ir/index.ts';
import type { StreamDecoder } from '../protocols/codec.ts';

/** Events read from a relayed stream's end: enough to hold a terminator and what precedes it. */
const KEPT_EVENTS = 8;
/** Bytes kept before the front is cut off at an event boundary (most streams never reach it). */
const TRIM_AT = 16 * 1024;
/** Event boundaries left after a cut: twice the events read, so keep-alive comments between them cannot starve the read. */
const KEPT_BOUNDARIES = 2 * KEPT_EVENTS;
const LF_LF = Buffer.from('\n\n');
const CRLF_CRLF = Buffer.from('\r\n\r\n');

/**
 * After commit, a same-protocol SSE stream only needs its end read: did the terminator come?
 * Instead of decoding every event (a JSON parse each), or even framing every read, the relayed
 * bytes are kept as they came from an event boundary on (the front cut off at a boundary now and
 * then, found with native searches), and at the end they are framed and their last few events
 * handed, framed, to a fresh decoder (not framed again). SSE terminators (`[DONE]`, `message_stop`, `response.completed`,
 * `message-end`, a chunk with `finishReason`) are self-contained events, so a decoder that starts
 * mid-stream still recognises them, and an event cut off mid-way still reads as broken. An
 * unfinished event past the framers' limit (an endless line) is framed from then on, read by
 * read, so it is refused as the probe would refuse it.
 */
export class StreamTail {
  /** Bytes from an event boundary on, in the reads they came in. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** The size that makes the next cut: twice what the last cut left (at least TRIM_AT), so large events are not copied on every read. */
  private trimAt = TRIM_AT;
  /** Set once an unfinished event passed the limit: every read is framed, the last events kept. */
  private framed: { readonly sse: SseParser; readonly last: SseEvent[] } | undefined;

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

  push(bytes: Buffer): void {
    if (this.framed !== undefined) {
      keep(this.framed.last, this.framed.sse.push(bytes));
      return;
    }
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.size += bytes.length;
    if (this.size > this.trimAt) this.trim();
  }

  /**
   * The events a fresh decoder reads from the last kept ones (`relayed`: what the client was
   * sent), then from its end (`end`: where a stream cut short shows as an error).
   */
  readEnd(decoder: StreamDecoder): { readonly relayed: StreamEvent[]; readonly end: StreamEvent[] } {
    const last = this.lastEvents();
    // Every SSE protocol's decoder takes the framed events as they are; another is given their text.
    const relayed = decoder.pushEvents?.(last) ?? decoder.push(Buffer.from(last.map((e) => sseEvent(e.data, e.event)).join('')));
    return { relayed, end: decoder.end() };
  }

  /**
   * The last KEPT_EVENTS events (an unfinished one at the end included). Kept bytes are framed
   * from the blank line before their last few blocks only: a blank line resets the framing, so
   * the events after it are the ones framing everything would end with. Comment-only blocks
   * (keep-alives) make that read come up short; then all of it is framed.
   */
  private lastEvents(): SseEvent[] {
    if (this.framed === undefined && this.chunks.length > 0) {
      const kept = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
      // Without a CR (the usual stream) a CR LF CR LF search would scan all the bytes each time.
      const crlf = kept.indexOf(13) !== -1;
      let cut = kept.length + 1;
      for (let i = 0; i <= KEPT_EVENTS && cut > 0; i++) cut = eventEndBefore(kept, cut, crlf);
      if (cut > 0) {
        const sse = new SseParser();
        const events = sse.push(kept.subarray(cut));
        events.push(...sse.end());
        if (events.length >= KEPT_EVENTS) return events.slice(events.length - KEPT_EVENTS);
      }
      this.chunks = [kept];
    }
    const framed = this.framed ?? this.frame();
    keep(framed.last, framed.sse.end());
    return framed.last;
  }

  /** The kept bytes framed: from here on every read is. */
  private frame(): { readonly sse: SseParser; readonly last: SseEvent[] } {
    const framed = { sse: new SseParser(), last: [] as SseEvent[] };
    this.framed = framed;
    for (const chunk of this.chunks) keep(framed.last, framed.sse.push(chunk));
    this.chunks = [];
    this.size = 0;
    return framed;
  }

  /** Cuts the front at the event boundary that leaves KEPT_BOUNDARIES complete events after it (nothing when there are fewer). */
  private trim(): void {
    const kept = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const lastEnd = eventEndBefore(kept, kept.length + 1);
    let cut = lastEnd;
    for (let i = 0; i < KEPT_BOUNDARIES && cut > 0; i++) cut = eventEndBefore(kept, cut);
    const rest = cut > 0 ? kept.subarray(cut) : kept;
    this.chunks = [rest];
    this.size = rest.length;
    this.trimAt = Math.min(Math.max(TRIM_AT, 2 * rest.length), MAX_STREAM_EVENT_CHARS);
    // An unfinished event this long: framed from now on, so the limit applies as everywhere else.
    // So are events so large that the last ones fill half of that: keeping their bytes would copy
    // megabytes a cut, where framing holds only the last events.
    if (kept.length - lastEnd > MAX_STREAM_EVENT_CHARS || rest.length > MAX_STREAM_EVENT_CHARS / 2) this.frame();
  }
}

/** In place: the last KEPT_EVENTS events. */
function keep(last: SseEvent[], events: SseEvent[]): void {
  if (events.length === 0) return;
  last.push(...events);
  if (last.length > KEPT_EVENTS) last.splice(0, last.length - KEPT_EVENTS);
}

/** The last event end (just past a blank line, LF LF or CR LF CR LF; LF LF only without `withCrlf`) before `limit`; 0 when there is none. */
function eventEndBefore(bytes: Buffer, limit: number, withCrlf = true): number {
  const lf = limit >= 3 ? bytes.lastIndexOf(LF_LF, limit - 3) : -1;
  const crlf = withCrlf && limit >= 5 ? bytes.lastIndexOf(CRLF_CRLF, limit - 5) : -1;
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4);
}
