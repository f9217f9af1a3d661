/**
 * Cuts a byte stream in AWS event-stream framing into whole frames. A frame starts with its own
 * total length (big-endian uint32), so frames are found without parsing them; the network may
 * split the bytes anywhere, including inside the length itself. CRCs are checked by decodeFrame.
 */
export class EventStreamSplitter {
  private chunks: Uint8Array[] = [];
  private size = 0;

  /** Whole frames completed by `chunk`, in order. Throws when a length cannot be a frame's. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    const frames: Uint8Array[] = [];
    while (this.size >= PRELUDE_LENGTH_BYTES) {
      const total = this.frameLength();
      if (total < MIN_FRAME_BYTES || total > MAX_FRAME_BYTES) {
        throw new Error(`event-stream frame length ${total} is outside ${MIN_FRAME_BYTES}..${MAX_FRAME_BYTES}`);
      }
      if (this.size < total) break;
      frames.push(this.take(total));
    }
    return frames;
  }

  /** Bytes of an incomplete frame still held: more than zero when a stream ends means it was cut. */
  get pendingBytes(): number {
    return this.size;
  }

  private frameLength(): number {
    // The length may straddle chunks (a byte-by-byte network): join just enough to read it.
    if ((this.chunks[0]?.length ?? 0) < PRELUDE_LENGTH_BYTES) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0] as Uint8Array;
    return new DataView(first.buffer, first.byteOffset, first.byteLength).getUint32(0, false);
  }

  /** Joins only once a whole frame is in, so a large frame arriving in pieces is copied once. */
  private take(length: number): Uint8Array {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : Buffer.concat(this.chunks);
    const rest = all.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    return all.subarray(0, length);
  }
}

const PRELUDE_LENGTH_BYTES = 4;
/** Prelude (total length, headers length, prelude CRC) plus the message CRC. */
const MIN_FRAME_BYTES = 16;
/** AWS caps a message at 16 MiB of payload plus 128 KiB of headers; anything larger is corrupt. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024 + 128 * 1024 + MIN_FRAME_BYTES;
