/**
 * Cuts relayed SSE bytes at their last line end, so only whole lines reach the client and the
 * unfinished one waits for its end. If the upstream then fails (an endless line, a cut), the
 * error event the gateway appends starts on a line of its own instead of completing the
 * upstream's half-written one. Reads almost always end at an event boundary: nothing is copied then.
 */
export class WholeLines {
  private pending: Buffer | undefined;

  /** The bytes up to and including the last line end (maybe none); the rest is kept. */
  take(bytes: Buffer): Buffer {
    if (this.pending === undefined && endsLine(bytes)) return bytes; // the usual read: no search
    const all = this.pending === undefined ? bytes : Buffer.concat([this.pending, bytes]);
    const end = Math.max(all.lastIndexOf(10), all.lastIndexOf(13)) + 1;
    this.pending = end === all.length ? undefined : all.subarray(end);
    return end === all.length ? all : all.subarray(0, end);
  }

  /** The unfinished last line, at a clean end of the stream. */
  rest(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    return rest;
  }
}

function endsLine(bytes: Buffer): boolean {
  const last = bytes[bytes.length - 1];
  return last === 10 || last === 13;
}
