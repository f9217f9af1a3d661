import { MAX_STREAM_EVENT_CHARS, streamEventTooLarge } from './stream-event-limit.ts';

/** One server-sent event. `event` is undefined when the stream named none (OpenAI Chat). */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * Incremental text/event-stream parser (WHATWG HTML "event stream interpretation"). Accepts bytes
 * split anywhere, including inside a multi-byte character or between the \r and \n of a line end.
 * A line or an event longer than `maxChars` throws a GatewayFailure (see stream-event-limit.ts).
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  /** A chunk ended in \r: if the next one starts with \n, that \n belongs to the same line end. */
  private pendingCr = false;
  private eventName: string | undefined = undefined;
  private readonly dataLines: string[] = [];
  /** Characters in `dataLines`. */
  private dataChars = 0;
  private readonly maxChars: number;

  constructor(maxChars = MAX_STREAM_EVENT_CHARS) {
    this.maxChars = maxChars;
  }

  push(chunk: Uint8Array): SseEvent[] {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  end(): SseEvent[] {
    const events = this.feed(this.decoder.decode());
    // A stream that ends without the final blank line still delivers its last complete lines.
    if (this.buffer.length > 0) {
      this.processLine(this.buffer, events);
      this.buffer = '';
    }
    this.dispatch(events);
    return events;
  }

  private feed(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    if (text.length === 0) return events;
    let start = 0;
    if (this.pendingCr && text.charCodeAt(0) === 10) start = 1;
    this.pendingCr = false;
    let buffer = this.buffer;
    // Line ends found by a native search; a read with a CR in it (CR or CR LF line ends) is walked.
    const lfOnly = text.indexOf('\r', start) === -1;
    for (let i = lfOnly ? text.indexOf('\n', start) : lineBreak(text, start); i !== -1; i = lfOnly ? text.indexOf('\n', start) : lineBreak(text, start)) {
      const code = text.charCodeAt(i);
      const line = buffer + text.slice(start, i);
      buffer = '';
      if (code === 13) {
        if (i + 1 === text.length) this.pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      this.processLine(line, events);
    }
    this.buffer = buffer + text.slice(start);
    if (this.buffer.length > this.maxChars) throw streamEventTooLarge('line');
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment (keep-alive)
    // The field name is compared in place and the value cut once (one string a line, not three).
    const colon = line.indexOf(':');
    const fieldEnd = colon === -1 ? line.length : colon;
    let valueStart = colon === -1 ? line.length : colon + 1;
    if (line.charCodeAt(valueStart) === 32) valueStart++;
    if (fieldEnd === 4 && line.startsWith('data')) {
      const value = line.slice(valueStart);
      this.dataChars += value.length;
      if (this.dataChars > this.maxChars || line.length > this.maxChars) throw streamEventTooLarge('event');
      this.dataLines.push(value);
    } else if (fieldEnd === 5 && line.startsWith('event')) this.eventName = line.slice(valueStart);
    // `id` and `retry` carry nothing the gateway needs.
  }

  private dispatch(events: SseEvent[]): void {
    const lines = this.dataLines;
    if (lines.length > 0) {
      events.push({ event: this.eventName, data: lines.length === 1 ? lines[0]! : lines.join('\n') });
      lines.length = 0;
    }
    this.dataChars = 0;
    this.eventName = undefined;
  }
}

/** The first LF or CR in `text` from `from`; -1 when there is none. */
function lineBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) return i;
  }
  return -1;
}
