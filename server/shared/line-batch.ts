import type { DestinationStream } from 'pino';

/** The most text held before it is handed on without waiting. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * How long log lines wait to be handed on together (the stdout destination, the worker relay):
 * a write to stdout, or a message to another thread, costs a thread wake-up however short it is;
 * one every 10 ms under load took 6-15% off a request's CPU against one per event-loop turn
 * (bench/RESULTS.md). Lines are seen at most this much later; pending ones are flushed at exit.
 */
export const LOG_BATCH_MS = 10;

/**
 * A log destination that gathers the lines written over a short while (one turn of the event
 * loop, or `delayMs` after the first) and hands them on as one string: a busy gateway writes a
 * line per request, and whatever takes them (a stream, a message to another thread) pays per
 * call, not per character. Nothing waits for a batch to fill. Lines keep their order.
 */
export class LineBatch implements DestinationStream {
  private readonly target: (text: string) => void;
  private readonly delayMs: number;
  private readonly flushLater = () => this.flush();
  private pending = '';
  private scheduled = false;

  /** `delayMs`: hand on a few milliseconds after the first line rather than at the end of its turn. */
  constructor(target: (text: string) => void, delayMs = 0) {
    this.target = target;
    this.delayMs = delayMs;
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      if (this.delayMs > 0) setTimeout(this.flushLater, this.delayMs);
      else setImmediate(this.flushLater);
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
