/**
 * Cuts relayed SSE bytes at their last line end, so only whole lines reach the client and the
 * unfinished one waits for its end. If the upstream then fails (an endless line, a cut), the
 * error event the gateway appends starts on a line of its own instead of completing the
 * upstream's half-written one. Reads almost always end at an event boundary: nothing is copied then.
 * An unfinished line is kept as the reads that brought it and joined once, when it ends: a long
 * line (an upstream that never ends one) costs one copy, not one per read.
 */
export class WholeLines {
  private readonly pending: Buffer[] = [];

  /** The bytes up to and including the last line end (maybe none); the rest is kept. */
  take(bytes: Buffer): Buffer {
    if (this.pending.length === 0 && endsLine(bytes)) return bytes; // the usual read: no search
    const end = lastLineEnd(bytes) + 1;
    if (end === 0) {
      if (bytes.length > 0) this.pending.push(bytes);
      return EMPTY;
    }
    const whole = end === bytes.length ? bytes : bytes.subarray(0, end);
    const out = this.pending.length === 0 ? whole : Buffer.concat([...this.pending, whole]);
    this.pending.length = 0;
    if (end < bytes.length) this.pending.push(bytes.subarray(end));
    return out;
  }

  /** The unfinished last line, at a clean end of the stream. */
  rest(): Buffer | undefined {
    if (this.pending.length === 0) return undefined;
    const rest = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending.length = 0;
    return rest;
  }
}

const EMPTY = Buffer.alloc(0);

function lastLineEnd(bytes: Buffer): number {
  return Math.max(bytes.lastIndexOf(10), bytes.lastIndexOf(13));
}

function endsLine(bytes: Buffer): boolean {
  const last = bytes[bytes.length - 1];
  return last === 10 || last === 13;
}
