import type { DestinationStream } from 'pino';

/** The most text held before it is handed on without waiting for the turn to end. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * A log destination that gathers the lines written during one turn of the event loop and hands
 * them on as one string: a busy gateway writes a line per request, and whatever takes them (a
 * stream, a message to another thread) pays per call, not per character. Nothing waits for a
 * batch to fill: a lone line goes on at the end of its turn. Lines keep their order.
 */
export class TurnBatch implements DestinationStream {
  private readonly target: (text: string) => void;
  private pending = '';
  private scheduled = false;

  constructor(target: (text: string) => void) {
    this.target = target;
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Hands on what is pending now (pino's `logger.flush(cb)` calls it with a callback). */
  flush(done?: (error?: Error) => void): void {
    this.scheduled = false;
    if (this.pending.length > 0) {
      const text = this.pending;
      this.pending = '';
      this.target(text);
    }
    done?.();
  }
}
