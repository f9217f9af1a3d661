import type { WireChunk } from '../protocols/codec.ts';

/**
 * Collects encoded stream pieces for one write. SSE encoders produce text and stay text (one
 * string join); a binary framing (Bedrock's event stream) turns the batch into one Buffer.
 */
export class WireBatch {
  private text = '';
  private parts: Uint8Array[] | undefined;

  add(chunk: WireChunk): void {
    if (chunk.length === 0) return;
    if (typeof chunk === 'string' && this.parts === undefined) {
      this.text += chunk;
      return;
    }
    this.parts ??= this.text === '' ? [] : [Buffer.from(this.text)];
    this.text = '';
    this.parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }

  take(): WireChunk {
    const out = this.parts === undefined ? this.text : Buffer.concat(this.parts);
    this.text = '';
    this.parts = undefined;
    return out;
  }
}
