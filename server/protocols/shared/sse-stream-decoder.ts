import { gatewayError, type StreamEvent } from '../../ir/index.ts';
import { SseParser, type SseEvent } from '../../framing/sse-parser.ts';
import type { StreamDecoder } from '../codec.ts';
import { streamEndedEarly } from './stream-ended-early.ts';

/**
 * What every SSE-framed protocol's stream decoder shares: framing, JSON parsing of payloads, and
 * the rule that a stream which ends before the protocol's terminator ends with an error event.
 * A subclass maps one event's payload to IR events and sets `done` at the terminator.
 */
export abstract class SseStreamDecoder implements StreamDecoder {
  private readonly sse = new SseParser();
  protected done = false;
  private readonly protocolName: string;

  protected constructor(protocolName: string) {
    this.protocolName = protocolName;
  }

  push(chunk: Uint8Array): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of this.sse.push(chunk)) if (!this.done) this.onEvent(event, out);
    return out;
  }

  /**
   * Events framed already (the stream tail's): what pushing their bytes would give, without
   * formatting them as text, encoding, decoding and framing them a second time.
   */
  pushEvents(events: readonly SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of events) if (!this.done) this.onEvent(event, out);
    return out;
  }

  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of this.sse.end()) if (!this.done) this.onEvent(event, out);
    this.endIfTruncated(out);
    return out;
  }

  /** At the upstream's close: a stream not yet at its terminator ends with the truncation error. */
  protected endIfTruncated(out: StreamEvent[]): void {
    if (this.done) return;
    this.beforeTruncation(out);
    out.push(streamEndedEarly(this.protocolName));
    this.done = true;
  }

  protected abstract onEvent(event: SseEvent, out: StreamEvent[]): void;

  /** Lets a decoder close what it holds open before the truncation error. */
  protected beforeTruncation(_out: StreamEvent[]): void {}

  /** The payload as JSON, or undefined after emitting the error that ends the stream. */
  protected parsePayload<T>(data: string, out: StreamEvent[]): T | undefined {
    try {
      return JSON.parse(data) as T;
    } catch {
      out.push({
        type: 'error',
        error: gatewayError('server', `the ${this.protocolName} upstream sent a stream event that is not JSON`, { status: 502, code: 'bad_upstream_stream' }),
      });
      this.done = true;
      return undefined;
    }
  }
}
