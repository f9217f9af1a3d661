import { pino, type DestinationStream, type Logger } from 'pino';

/** The most text a worker holds before it sends it on without waiting for the turn to end. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * A worker thread's log destination: its lines (request lines included, each made in the worker
 * that served the request) are gathered over one turn of the event loop and posted to the main
 * thread as one string, which the main thread appends to its own stdout destination. Only one
 * thread ever writes stdout, so lines from different threads never interleave mid-line (two
 * threads each writing a pipe can, once it is full), and the main thread does no per-request
 * work for another worker's requests: one string a turn, however many lines it holds.
 */
export class LogRelay implements DestinationStream {
  private readonly post: (text: string) => void;
  private pending = '';
  private scheduled = false;

  constructor(post: (text: string) => void) {
    this.post = post;
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending;
    this.pending = '';
    this.post(text);
  }
}

/** Main thread: appends a worker's relayed lines to this logger's own destination, as they came. */
export function relayedLinesWriter(log: Logger): (text: string) => void {
  const stream = (log as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  return stream === undefined ? (text) => process.stdout.write(text) : (text) => stream.write(text);
}
