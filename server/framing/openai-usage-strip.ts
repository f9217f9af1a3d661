import { lastSseEventEnd, sseEventEnd } from './sse-event-end.ts';

const NULL_USAGE_AFTER = Buffer.from(',"usage":null');
const NULL_USAGE_BEFORE = Buffer.from('"usage":null,');
const EMPTY_CHOICES = Buffer.from('"choices":[]');
const USAGE_OBJECT = Buffer.from('"usage":{');
const USAGE_KEY = Buffer.from('"usage"');

/**
 * Gives an OpenAI chat stream back the shape it has without `stream_options.include_usage`, when
 * the gateway asked for usage and the client did not: the final usage-only chunk (empty
 * `choices`, a `usage` object) is removed, and so is the `"usage":null` member OpenAI adds to
 * every other chunk. Byte searches on whole SSE events (LF or CR LF framed), no JSON parse: a
 * quoted `"usage"` key cannot occur inside a JSON string (its quotes would be escaped). A read's
 * unfinished last event waits for the next read (a client acts on whole events only).
 */
export class OpenAIUsageStrip {
  private pending: Buffer | undefined;

  /** The whole events completed by `bytes`, stripped. */
  push(bytes: Buffer): Buffer {
    const all = this.pending === undefined ? bytes : Buffer.concat([this.pending, bytes]);
    const end = lastSseEventEnd(all);
    if (end === 0) {
      this.pending = all;
      return Buffer.alloc(0);
    }
    this.pending = end < all.length ? Buffer.from(all.subarray(end)) : undefined;
    return strip(all.subarray(0, end));
  }

  /** What is left at the stream's end (an event cut short), as it came. */
  end(): Buffer {
    const rest = this.pending ?? Buffer.alloc(0);
    this.pending = undefined;
    return rest;
  }
}

/** Whole events: most reads have no `"usage"` at all and are returned as they are. One copy per read. */
function strip(events: Buffer): Buffer {
  if (events.indexOf(USAGE_KEY) === -1) return events;
  const out: Buffer[] = [];
  let start = 0;
  while (start < events.length) {
    const next = sseEventEnd(events, start);
    const end = next === -1 ? events.length : next;
    const event = events.subarray(start, end);
    start = end;
    if (event.indexOf(EMPTY_CHOICES) !== -1 && event.indexOf(USAGE_OBJECT) !== -1) continue; // the usage-only chunk
    pushWithoutNullUsage(event, out);
  }
  return Buffer.concat(out);
}

/** The event's pieces around its `"usage":null` member, if it has one. */
function pushWithoutNullUsage(event: Buffer, out: Buffer[]): void {
  let at = event.indexOf(NULL_USAGE_AFTER);
  let length = NULL_USAGE_AFTER.length;
  if (at === -1) {
    at = event.indexOf(NULL_USAGE_BEFORE);
    length = NULL_USAGE_BEFORE.length;
  }
  if (at === -1) {
    out.push(event);
    return;
  }
  out.push(event.subarray(0, at), event.subarray(at + length));
}
