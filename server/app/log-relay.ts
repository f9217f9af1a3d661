import { pino, type DestinationStream, type Logger } from 'pino';
import { LOG_BATCH_MS, LineBatch } from '../shared/line-batch.ts';

/**
 * A worker thread's log destination: its lines (request lines included, each made in the worker
 * that served the request) are gathered for a few milliseconds (LOG_BATCH_MS) and posted to the main
 * thread as one string, which the main thread appends to its own stdout destination. Only one
 * thread ever writes stdout, so lines from different threads never interleave mid-line (two
 * threads each writing a pipe can, once it is full), and the main thread does no per-request
 * work for another worker's requests: one string per batch, however many lines it holds.
 */
export class LogRelay extends LineBatch {
  constructor(post: (text: string) => void) {
    super(post, LOG_BATCH_MS);
  }
}

/** Main thread: appends a worker's relayed lines to this logger's own destination, as they came. */
export function relayedLinesWriter(log: Logger): (text: string) => void {
  const stream = (log as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  return stream === undefined ? (text) => process.stdout.write(text) : (text) => stream.write(text);
}
